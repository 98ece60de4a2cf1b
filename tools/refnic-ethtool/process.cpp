// SPDX-License-Identifier: GPL-2.0-only
#include "process.hpp"

#include <refnic/error.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <utility>

namespace refnic::ethtool_cli {

namespace {

// Owns one file descriptor.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) noexcept : fd_(fd) {}
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    ~UniqueFd() { reset(); }

    [[nodiscard]] int get() const noexcept { return fd_; }
    void reset() noexcept {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }

private:
    int fd_ = -1;
};

// Owns a posix_spawn_file_actions_t.
class SpawnFileActions {
public:
    SpawnFileActions() {
        if (const int error = posix_spawn_file_actions_init(&actions_); error != 0) {
            throw Error(error, "preparing to run a program");
        }
    }
    SpawnFileActions(const SpawnFileActions&) = delete;
    SpawnFileActions& operator=(const SpawnFileActions&) = delete;
    SpawnFileActions(SpawnFileActions&&) = delete;
    SpawnFileActions& operator=(SpawnFileActions&&) = delete;
    ~SpawnFileActions() { posix_spawn_file_actions_destroy(&actions_); }

    [[nodiscard]] posix_spawn_file_actions_t* get() noexcept { return &actions_; }

private:
    posix_spawn_file_actions_t actions_{};
};

std::vector<char*> make_argv(const std::filesystem::path& program, std::vector<std::string>& args) {
    std::vector<char*> argv;
    argv.reserve(args.size() + 2);
    // posix_spawn() takes char* const[] for historical reasons; it does not write through them.
    argv.push_back(const_cast<char*>(program.c_str()));
    for (std::string& arg : args) {
        argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    return argv;
}

pid_t spawn(const std::filesystem::path& program, std::vector<std::string> args,
            const posix_spawn_file_actions_t* actions) {
    std::vector<char*> argv = make_argv(program, args);
    pid_t pid = -1;
    // glibc's posix_spawn reports exec failures (ENOENT, EACCES, ...) as its return value.
    if (const int error =
            posix_spawn(&pid, program.c_str(), actions, nullptr, argv.data(), environ);
        error != 0) {
        throw Error(error, "running " + program.string());
    }
    return pid;
}

int wait_for(pid_t pid, const std::filesystem::path& program) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            throw Error(errno, "waiting for " + program.string());
        }
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

}  // namespace

void exec_program(const std::filesystem::path& program, char* const* argv) {
    ::execv(program.c_str(), argv);
    throw Error(errno, "running " + program.string());
}

int run_program(const std::filesystem::path& program, const std::vector<std::string>& args) {
    return wait_for(spawn(program, args, nullptr), program);
}

CapturedRun run_capturing_stdout(const std::filesystem::path& program,
                                 const std::vector<std::string>& args) {
    std::array<int, 2> pipe_fds{-1, -1};
    if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
        throw Error(errno, "creating a pipe");
    }
    UniqueFd read_end(pipe_fds[0]);
    UniqueFd write_end(pipe_fds[1]);

    SpawnFileActions actions;
    // dup2() clears O_CLOEXEC on the child's stdout; every other pipe end closes on exec.
    if (const int error =
            posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), STDOUT_FILENO);
        error != 0) {
        throw Error(error, "preparing to run " + program.string());
    }
    const pid_t pid = spawn(program, args, actions.get());
    // Our copy of the write end must go, or reading would never see end-of-file.
    write_end.reset();

    CapturedRun run;
    std::array<char, 4096> chunk{};
    for (;;) {
        const ssize_t count = ::read(read_end.get(), chunk.data(), chunk.size());
        if (count > 0) {
            run.output.append(chunk.data(), static_cast<std::size_t>(count));
            continue;
        }
        if (count == 0) {
            break;
        }
        if (errno != EINTR) {
            const int error = errno;
            // Reap the child before reporting, so no zombie is left behind; closing our end
            // first makes sure it cannot block writing to a pipe nobody reads.
            read_end.reset();
            static_cast<void>(wait_for(pid, program));
            throw Error(error, "reading the output of " + program.string());
        }
    }
    run.exit_status = wait_for(pid, program);
    return run;
}

}  // namespace refnic::ethtool_cli
