// The stream's socket when the program takes its descriptor (core/own_descriptor.h): nothing is
// sent into or read from the program's socket at that number, it is never closed or shut down by
// clrscope, and the reader hears why the stream ended on a second connection.
#include <gtest/gtest.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "core/own_descriptor.h"
#include "core/platform.h"
#include "core/transport.h"
#include "core/wire_writer.h"
#include "sampler_test_parts.h"
#include "wire_reader.h"

namespace clrscope {
namespace {

std::set<int> high_descriptors() {
  std::set<int> out;
  DIR* dir = opendir("/proc/self/fd");
  while (dirent* e = readdir(dir)) {
    const int fd = std::atoi(e->d_name);
    if (fd >= platform::kHighDescriptorFloor && fd != dirfd(dir)) out.insert(fd);
  }
  closedir(dir);
  return out;
}

class LostSocket : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/clrscope-fd-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/sock";
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path_.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(listen(listener_, 4), 0);
    const std::set<int> before = high_descriptors();
    transport_ = connect_transport(path_, nullptr);
    ASSERT_TRUE(transport_);
    for (int fd : high_descriptors()) {
      if (before.count(fd) == 0) fd_ = fd;
    }
    ASSERT_GE(fd_, platform::kHighDescriptorFloor) << "the stream's socket is not above the low numbers";
    reader_ = accept(listener_, nullptr, nullptr);
    ASSERT_GE(reader_, 0);
  }
  void TearDown() override {
    transport_.reset();
    if (reader_ >= 0) close(reader_);
    close(listener_);
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  // The program's own socket pair, one end put at the stream's number (dup2 replaces atomically,
  // as a close followed by a socketpair() that reuses the number does in two steps).
  void take_the_number() {
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair_), 0);
    ASSERT_EQ(dup2(pair_[0], fd_), fd_);
    close(pair_[0]);
    pair_[0] = fd_;
  }
  ssize_t pending_at_program_end() {
    char b[256];
    return recv(pair_[1], b, sizeof b, MSG_DONTWAIT);
  }

  std::string dir_, path_;
  int listener_ = -1;
  int reader_ = -1;
  int fd_ = -1;
  int pair_[2] = {-1, -1};
  std::unique_ptr<Transport> transport_;
};

TEST_F(LostSocket, NothingGoesIntoOrComesOutOfTheProgramsSocket) {
  const uint8_t hello[5] = {'h', 'e', 'l', 'l', 'o'};
  size_t sent = 0;
  ASSERT_EQ(transport_->send(hello, sizeof hello, &sent), Transport::Status::kSent);
  take_the_number();
  // The reader saw its connection end: the program's dup2 closed the socket's last descriptor.
  char b[16];
  EXPECT_EQ(recv(reader_, b, sizeof b, 0), 5);
  EXPECT_EQ(recv(reader_, b, sizeof b, 0), 0);

  EXPECT_EQ(transport_->send(hello, sizeof hello, &sent), Transport::Status::kLost);
  EXPECT_EQ(sent, 0u);
  EXPECT_EQ(pending_at_program_end(), -1) << "clrscope's bytes reached the program's socket";
  EXPECT_EQ(errno, EAGAIN);
  const TransportLoss loss = transport_->loss();
  EXPECT_EQ(loss.descriptor, fd_);
  EXPECT_EQ(loss.how, static_cast<uint8_t>(DescriptorState::kReplaced));

  // The program's 13 bytes stay the program's: the command reader does not take them.
  const char theirs[13] = {'t', 'h', 'e', ' ', 'p', 'r', 'o', 'g', 'r', 'a', 'm', 's', '!'};
  ASSERT_EQ(send(pair_[1], theirs, sizeof theirs, 0), 13);
  uint8_t got[64];
  size_t n = 0;
  EXPECT_EQ(transport_->receive(got, sizeof got, &n), Transport::Received::kLost);
  EXPECT_FALSE(transport_->peer_finished());
  EXPECT_FALSE(transport_->wait_writable(0));
  transport_->finish();  // no shutdown of the program's socket
  transport_.reset();    // and no close
  ASSERT_NE(fcntl(fd_, F_GETFD), -1) << "clrscope closed the program's descriptor";
  EXPECT_EQ(recv(fd_, got, sizeof got, MSG_DONTWAIT), 13);
  EXPECT_EQ(send(fd_, "ok", 2, MSG_NOSIGNAL), 2) << "the program's socket was shut down";
  close(pair_[0]);
  close(pair_[1]);
}

TEST_F(LostSocket, AClosedNumberIsLostToo) {
  close(fd_);
  const uint8_t byte = 1;
  size_t sent = 0;
  EXPECT_EQ(transport_->send(&byte, 1, &sent), Transport::Status::kLost);
  EXPECT_EQ(transport_->loss().how, static_cast<uint8_t>(DescriptorState::kClosed));
  // A file opened later at the number is not taken for the socket either.
  const int file = open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_EQ(dup2(file, fd_), fd_);
  close(file);
  EXPECT_EQ(transport_->send(&byte, 1, &sent), Transport::Status::kLost);
  transport_.reset();
  EXPECT_NE(fcntl(fd_, F_GETFD), -1);
  close(fd_);
}

std::vector<uint8_t> read_to_end(int fd) {
  std::vector<uint8_t> out;
  uint8_t buf[4096];
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  return out;
}

// The sampler, driven tick by tick: once the program took the stream's number, it sends nothing
// more there, goes quiet, and says why on a new connection: HELLO marked after-loss, STATS, and
// END of reason 4 with the descriptor.
TEST_F(LostSocket, TheSamplerSaysWhyOnASecondConnection) {
  testing::SamplingParts parts(64);
  testing::NativeOnlyResolver resolver;
  SamplerConfig config;
  config.cpu = false;
  config.wall = false;
  config.interval_ns = 1000000;
  Sampler sampler(config, &parts.shared, &resolver, std::move(transport_));
  sampler.begin_stream();
  sampler.tick(platform::mono_now_ns());
  take_the_number();
  sampler.tick(platform::mono_now_ns());
  EXPECT_TRUE(sampler.quiet());
  EXPECT_EQ(pending_at_program_end(), -1) << "the stream went on in the program's socket";

  const std::vector<uint8_t> first = read_to_end(reader_);
  const testing::ReadStream cut = testing::read_stream(first);
  EXPECT_FALSE(cut.ended);

  const int again = accept(listener_, nullptr, nullptr);
  ASSERT_GE(again, 0) << "no second connection";
  const testing::ReadStream why = testing::read_stream(read_to_end(again));
  close(again);
  EXPECT_EQ(why.pid, cut.pid);
  EXPECT_EQ(why.hello_flags & wire::kHelloAfterLoss, wire::kHelloAfterLoss);
  EXPECT_TRUE(why.ended);
  EXPECT_EQ(why.end_reason, wire::kEndConnectionLost);
  EXPECT_EQ(why.end_descriptor, fd_);
  EXPECT_EQ(why.end_how, static_cast<uint8_t>(DescriptorState::kReplaced));
  EXPECT_TRUE(why.samples.empty());

  sampler.tick(platform::mono_now_ns());
  EXPECT_EQ(pending_at_program_end(), -1);
  close(pair_[0]);
  close(pair_[1]);
}

}  // namespace
}  // namespace clrscope
