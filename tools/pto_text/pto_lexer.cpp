// The `.pto` lexer (see pto_lexer.hpp).
#include "pto_text/pto_lexer.hpp"

#include <cstdio>

namespace tilefw::tools::pto_text {

namespace {

bool is_word_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '$';
}
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  explicit Lexer(const std::string& s) : s_(s) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (true) {
      skip_space();
      Token t;
      t.pos = Pos{line_, col_};
      if (i_ >= s_.size()) {
        t.kind = Tok::end;
        out.push_back(t);
        return out;
      }
      next(t);
      out.push_back(std::move(t));
    }
  }

 private:
  void advance() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }

  void skip_space() {
    while (i_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[i_]);
      const bool slash_comment = c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/';
      // `#pto<...>` is an attribute value; any other `#` starts a comment (as in the ISA pages).
      const bool hash_comment = c == '#' && s_.compare(i_, 4, "#pto") != 0;
      if (slash_comment || hash_comment) {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';') {
        advance();
      } else {
        return;
      }
    }
  }

  std::string take_word() {
    std::string w;
    while (i_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[i_]);
      // A decimal exponent's sign belongs to the number (1.5e-3).
      const bool exp_sign = (c == '-' || c == '+') && !w.empty() && (w.back() == 'e' || w.back() == 'E') &&
                            (is_digit(static_cast<unsigned char>(w[0])) || w[0] == '-') &&
                            w.find_first_of("xX") == std::string::npos;
      if (!is_word_char(c) && !exp_sign) break;
      w.push_back(static_cast<char>(c));
      advance();
    }
    return w;
  }

  void next(Token& t) {
    const unsigned char c = static_cast<unsigned char>(s_[i_]);
    const unsigned char n = i_ + 1 < s_.size() ? static_cast<unsigned char>(s_[i_ + 1]) : 0;
    if (c == '%' || c == '@' || c == '!') {
      advance();
      t.kind = c == '%' ? Tok::value : c == '@' ? Tok::symbol : Tok::bang;
      t.text = take_word();
      if (t.text.empty()) throw TextError(t.pos, std::string("expected a name after '") + static_cast<char>(c) + "'");
      return;
    }
    if (c == '-' && n == '>') {
      advance();
      advance();
      t.kind = Tok::arrow;
      t.text = "->";
      return;
    }
    if (c == '#' || is_word_char(c) || (c == '-' && is_digit(n))) {
      t.kind = Tok::word;
      if (c == '-' || c == '#') {
        t.text.push_back(static_cast<char>(c));
        advance();
      }
      t.text += take_word();
      return;
    }
    if (c == '(' || c == ')' || c == '{' || c == '}' || c == '[' || c == ']' || c == '<' || c == '>' ||
        c == ',' || c == ':' || c == '=' || c == '?') {
      t.kind = Tok::punct;
      t.text = std::string(1, static_cast<char>(c));
      advance();
      return;
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", c);
    throw TextError(t.pos, std::string("unexpected byte ") + hex);
  }

  const std::string& s_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  uint32_t col_ = 1;
};

}  // namespace

std::vector<Token> lex(const std::string& text) {
  if (text.size() > kMaxTextBytes) {
    throw TextError(Pos{1, 1}, "the text has " + std::to_string(text.size()) + " bytes, above the limit of " +
                                   std::to_string(kMaxTextBytes));
  }
  return Lexer(text).run();
}

std::string describe(const Token& t) {
  std::string shown = t.text.size() > 40 ? t.text.substr(0, 40) + "..." : t.text;
  switch (t.kind) {
    case Tok::end: return "end of input";
    case Tok::value: return "'%" + shown + "'";
    case Tok::symbol: return "'@" + shown + "'";
    case Tok::bang: return "'!" + shown + "'";
    default: return "'" + shown + "'";
  }
}

}  // namespace tilefw::tools::pto_text
