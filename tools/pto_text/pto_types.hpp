// Token stream and type grammar shared by the `.pto` parser and printer. Host-only.
#pragma once

#include <string>
#include <vector>

#include "pto_text/pto_ir.hpp"
#include "pto_text/pto_lexer.hpp"

namespace tilefw::tools::pto_text {

class TokenStream {
 public:
  explicit TokenStream(std::vector<Token> toks) : toks_(std::move(toks)) {}
  const Token& peek(size_t ahead = 0) const {
    const size_t j = i_ + ahead;
    return j < toks_.size() ? toks_[j] : toks_.back();
  }
  Token take();
  Token expect(const char* punct);
  Token expect_word(const char* word);
  bool accept(const char* punct);

 private:
  std::vector<Token> toks_;
  size_t i_ = 0;
};

/// Unsigned decimal or 0x hex (what names the field in a message).
uint64_t parse_u64(const Token& t, const char* what);
uint32_t parse_u32(const Token& t, const char* what);

/// One type (throws TextError naming the token).
Type parse_type(TokenStream& ts);
/// The canonical spelling; a tile as `!pto.tile_buf<...>` or `!pto.tile<...>`.
std::string type_text(const Type& t, bool tile_buf);

}  // namespace tilefw::tools::pto_text
