#pragma once
// SIGINT/SIGTERM/SIGHUP: remove every temporary output still in flight and exit 128 + signal number with one
// line saying how many outputs were finished. Files already committed stay; nothing half-written is left.
//
// install_interrupt_cleanup() blocks those signals in the calling thread (so in every thread it starts later,
// OpenMP's and the batch workers' included) and starts one thread that waits for them with sigwait(); the
// cleanup then runs in that thread's ordinary context, under the same lock AtomicFile registers its
// temporaries with, so no temporary can be created or renamed halfway through it. Call it first in main().
#include <cstdint>
#include <functional>
#include <string>

namespace dct::core {

void install_interrupt_cleanup();

// AtomicFile's side. Each step holds the registry's lock, so the cleanup sees every temporary that exists.
// create_temporary: mkstemp(templ) (templ is rewritten); returns the descriptor, or -1 with errno set.
int create_temporary(std::string& templ);
// commit_temporary: rename(temp, path); returns 0, or the errno of a failed rename (temp stays registered).
int commit_temporary(const std::string& temp, const std::string& path);
// discard_temporary: unlink(temp) and forget it.
void discard_temporary(const std::string& temp);

// Outputs committed so far in this process (for the interrupt summary).
std::int64_t committed_outputs();

// Replaces the interrupt's summary: `summary` is given this process's own ("3 outputs finished, 1 unfinished
// removed") and returns the text printed after "dctool: interrupted by SIGTERM: ", or "" for no line at all (a
// distributed batch's root tells what the whole batch finished and what it did not; its other processes stay
// quiet). It runs in the signal thread after this process's temporaries are removed, with the registry's lock
// held: it must not create, commit or discard a temporary (it may unlink files itself). Empty: the own summary.
void set_interrupt_summary(std::function<std::string(const std::string& own)> summary);

}  // namespace dct::core
