// Tokens of a `.pto` text (docs/pto-text.md, "Lexical rules"): words (identifiers, numbers,
// shapes such as 8x64xf32, dotted names such as pto.tadd), %values, @symbols and punctuation,
// each with its line and column. Comments (`//` and `#` to the end of the line) and `;` are
// skipped. Any other byte is bad text naming it. Host-only.
#pragma once

#include <string>
#include <vector>

#include "pto_text/pto_ir.hpp"

namespace tilefw::tools::pto_text {

enum class Tok : uint8_t { word, value, symbol, bang, punct, arrow, end };

struct Token {
  Tok kind = Tok::end;
  std::string text;  // word / value (without %) / symbol (without @) / bang (without !) / punct
  Pos pos{};
};

/// Splits `text` (at most kMaxTextBytes) into tokens ending with one Tok::end. Throws TextError.
std::vector<Token> lex(const std::string& text);

/// How a token is named in a message: `'foo'`, `'%x'`, `end of input`.
std::string describe(const Token& t);

}  // namespace tilefw::tools::pto_text
