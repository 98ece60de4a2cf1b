// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
#include <refnic/error.hpp>

#include <string>
#include <utility>

namespace refnic {

namespace {

// std::strerror is not thread-safe; the category's message() is.
std::string errno_text(int errnum) { return std::generic_category().message(errnum); }

std::string describe(int errnum, const std::string& context, const Extack& extack) {
    std::string text = context;
    if (!text.empty()) {
        text += ": ";
    }
    if (extack.message.empty()) {
        text += errno_text(errnum);
    } else {
        text += extack.message + " (" + errno_text(errnum) + ")";
    }
    if (extack.attr_offset) {
        text += " [offending attribute " +
                (extack.attr_name.empty() ? std::string() : extack.attr_name + " ") + "at offset " +
                std::to_string(*extack.attr_offset) + "]";
    }
    if (extack.missing_attr) {
        text += " [missing attribute " +
                (extack.missing_attr_name.empty() ? "type " + std::to_string(*extack.missing_attr)
                                                  : extack.missing_attr_name) +
                "]";
    }
    return text;
}

}  // namespace

Error::Error(int errnum, std::string context, Extack extack, bool from_kernel)
    : std::system_error(errnum, std::generic_category()),
      context_(std::move(context)),
      extack_(std::move(extack)),
      from_kernel_(from_kernel),
      what_(describe(errnum, context_, extack_)) {}

std::string Error::reason() const {
    return extack_.message.empty() ? errno_text(errnum()) : extack_.message;
}

}  // namespace refnic
