#include <gtest/gtest.h>
#include <netdb.h>

#include "../calc.h"

// Whether `host` resolves, as an HTTP client asks before it connects.
static bool resolves(const char *host) {
  struct addrinfo *found = nullptr;
  int error = getaddrinfo(host, "80", nullptr, &found);
  if (found) freeaddrinfo(found);
  return error == 0;
}

TEST(Calc, Add) { EXPECT_EQ(5, add(2, 3)); }

TEST(Calc, Wrong) { EXPECT_EQ(6, add(2, 3)); }

TEST(Net, Local) { ASSERT_TRUE(resolves("localhost")); }

TEST(Net, Online) { ASSERT_TRUE(resolves("example.com")); }

TEST(Calc, Mul) { EXPECT_EQ(12, mul(3, 4)); }
