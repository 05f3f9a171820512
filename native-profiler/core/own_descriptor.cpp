#include "core/own_descriptor.h"

namespace clrscope {

DescriptorState judge_descriptor(const DescriptorIdentity& kept, bool open_now, const DescriptorIdentity& now) {
  if (!open_now) return DescriptorState::kClosed;
  const bool same = now.device == kept.device && now.inode == kept.inode && now.type == kept.type;
  return same ? DescriptorState::kOwned : DescriptorState::kReplaced;
}

OwnDescriptor::OwnDescriptor(int fd) {
  if (fd < 0) return;
  fd_ = platform::move_descriptor_high(fd);
  if (platform::descriptor_identity(fd_, &identity_)) state_ = DescriptorState::kOwned;
}

bool OwnDescriptor::owned() {
  if (state_ != DescriptorState::kOwned) return false;
  DescriptorIdentity now;
  const bool open_now = platform::descriptor_identity(fd_, &now);
  state_ = judge_descriptor(identity_, open_now, now);
  return state_ == DescriptorState::kOwned;
}

void OwnDescriptor::close() {
  if (owned()) platform::close_descriptor(fd_);
  state_ = DescriptorState::kClosed;
  fd_ = -1;
}

}  // namespace clrscope
