// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
#include <refnic/error.hpp>
#include <refnic/fd.hpp>

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace refnic {

namespace {

constexpr std::string_view netns_directory = "/var/run/netns/";

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
        reset(other.release());
    }
    return *this;
}

UniqueFd::~UniqueFd() { reset(); }

void UniqueFd::reset(int fd) noexcept {
    if (fd_ >= 0) {
        ::close(fd_);
    }
    fd_ = fd;
}

UniqueFd open_netns(std::string_view name_or_path) {
    if (name_or_path.empty() || name_or_path.find('\0') != std::string_view::npos ||
        name_or_path == "." || name_or_path == "..") {
        throw Error(EINVAL, "invalid network namespace name \"" + std::string(name_or_path) + "\"");
    }
    const std::string path = name_or_path.find('/') == std::string_view::npos
                                 ? std::string(netns_directory) + std::string(name_or_path)
                                 : std::string(name_or_path);
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
        throw Error(errno, "opening network namespace " + path);
    }
    // NS_GET_NSTYPE tells a namespace file from any other file (ENOTTY on those).
    const int type = ::ioctl(fd.get(), NS_GET_NSTYPE);
    if (type < 0 && errno != ENOTTY) {
        throw Error(errno, "checking network namespace " + path);
    }
    if (type != CLONE_NEWNET) {
        throw Error(EINVAL, path + " is not a network namespace");
    }
    return fd;
}

}  // namespace refnic
