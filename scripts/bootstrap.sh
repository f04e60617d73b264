#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every Debian package QSimba needs to build and test, skipping what is present.
# Runs `apt-get update` only when something is missing. Needs root (or sudo) for installs.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config lld clang libclang-rt-dev
  qt6-base-dev qt6-declarative-dev qt6-declarative-dev-tools qt6-tools-dev qt6-l10n-tools qt6-httpserver-dev
  qt6-websockets-dev qt6-charts-dev qml6-module-qtcharts qcoro-qt6-dev
  libqt6sql6-sqlite libqt6sql6-psql libqt6sql6-mysql
  qml6-module-qtquick qml6-module-qtquick-window qml6-module-qtquick-controls
  qml6-module-qtquick-templates qml6-module-qtquick-layouts qml6-module-qtqml-workerscript
  qml6-module-qttest
  libhiredis-dev libzookeeper-mt-dev libcurl4-openssl-dev
  redis-server redis-tools zookeeper postgresql mariadb-server mariadb-client
  etcd-server etcd-client prometheus openssl curl
  xvfb xauth fonts-wqy-microhei ccache linux-perf valgrind
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#packages[@]} packages present"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
# Do not let apt start the distribution's servers on their default ports: the tests start
# their own on free ports.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null
  "${sudo_cmd[@]}" chmod +x "$policy"
  created_policy=1
fi
trap '[ $created_policy -eq 1 ] && "${sudo_cmd[@]}" rm -f "$policy"' EXIT
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
