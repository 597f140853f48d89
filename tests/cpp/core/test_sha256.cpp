// SHA-256 against the FIPS 180-4 / NIST example vectors.
#include "gpukit/core/sha256.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using gpukit::sha256;

TEST(sha256, empty_input) {
    EXPECT_EQ(sha256::hex_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(sha256, abc) {
    EXPECT_EQ(sha256::hex_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(sha256, two_block_message) {
    EXPECT_EQ(sha256::hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(sha256, million_a_fed_in_uneven_pieces) {
    sha256 hash;
    const std::string piece(997, 'a');
    std::size_t left = 1000000;
    while (left > 0) {
        const std::size_t n = std::min(left, piece.size());
        hash.update(piece.data(), n);
        left -= n;
    }
    EXPECT_EQ(hash.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(sha256, lengths_around_the_padding_boundary_differ) {
    // 55, 56 and 64 bytes take the one-block, two-block and full-block padding paths.
    EXPECT_EQ(sha256::hex_of(std::string(55, 'x')).size(), 64u);
    EXPECT_NE(sha256::hex_of(std::string(55, 'x')), sha256::hex_of(std::string(56, 'x')));
    EXPECT_EQ(sha256::hex_of(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

}  // namespace
