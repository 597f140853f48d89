// Running part of a test in a child made by fork(): for what must happen in a process of
// its own (a fork() child's view of gpukit) or what might hang (a hang then fails the test
// instead of stopping the suite).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

namespace gpukit::testing {

// Runs `child` (which returns an exit status) in a fork() child that SIGALRM ends after
// `seconds`. Returns the child's exit status, or -1 when it did not exit by itself (a
// signal, a hang) or could not be made.
template <class Child>
int exit_status_of_forked(Child child, unsigned seconds = 30) {
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(seconds);  // alarms are not inherited: each child gets its own
        _exit(child());
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

}  // namespace gpukit::testing
