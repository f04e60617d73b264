// SPDX-License-Identifier: Apache-2.0
// simbactl's exit codes (documented in --help and the README); not installed.
#pragma once

namespace ExitCode {
constexpr int Ok = 0;
//! A bad command line: unknown command or option, malformed duration, URL or name (EX_USAGE).
constexpr int Usage = 64;
//! The backend failed: unreachable, refused, or it cannot be inspected (EX_UNAVAILABLE).
constexpr int Unavailable = 69;
//! An unexpected internal error (EX_SOFTWARE).
constexpr int Software = 70;
//! lock: the timeout passed before the lock was won (EX_TEMPFAIL).
constexpr int Timeout = 75;
//! lock: the term was lost while the command ran; the command got SIGTERM (then SIGKILL).
constexpr int TermLost = 79;
//! The command could not be started (exists but is not executable), as in sh.
constexpr int CannotExecute = 126;
//! The command was not found, as in sh.
constexpr int NotFound = 127;
//! 128 + N: a command killed by signal N; lock interrupted by SIGINT (130) or SIGTERM (143).
constexpr int SignalBase = 128;
} // namespace ExitCode
