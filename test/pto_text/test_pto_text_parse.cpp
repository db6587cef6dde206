// The `.pto` parser and printer: every implemented instruction in the three forms round-trips
// (text -> program -> canonical text -> the same program), the canonical text of known
// statements is exact, and each class of bad text gets its exact line:column message.
#include <gtest/gtest.h>

#include <string>

#include "pto_text/pto_ir.hpp"
#include "pto_text_fixtures.hpp"

namespace {

namespace pt = tilefw::tools::pto_text;
using pto_text_test::buf;
using pto_text_test::kCol;
using pto_text_test::kRow;
using pto_text_test::module_for;
using pto_text_test::prologue;
using pto_text_test::tile;

std::string with_body(const std::string& body);

std::string error_of(const std::string& text) {
  try {
    pt::parse(text);
  } catch (const pt::TextError& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(PtoTextRoundTrip, EveryInstructionInEveryForm) {
  int checked = 0;
  for (const pt::OpInfo& info : pt::all_ops()) {
    for (pt::Form form : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
      const std::string text = module_for(info, form);
      SCOPED_TRACE(text);
      pt::Module m;
      ASSERT_NO_THROW(m = pt::parse(text));
      const pt::Stmt& last = m.func.body.back();
      EXPECT_EQ(last.kind, pt::StmtKind::instr);
      EXPECT_EQ(last.form, form);
      EXPECT_EQ(last.op, info.name);
      const std::string canonical = pt::print(m);
      pt::Module again;
      ASSERT_NO_THROW(again = pt::parse(canonical)) << canonical;
      EXPECT_TRUE(again == m) << canonical;
      EXPECT_EQ(pt::print(again), canonical);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 47 * 3);
}

TEST(PtoTextRoundTrip, TheBuilderWritesCanonicalText) {
  // The fixtures spell statements canonically, so printing gives the input back byte for byte.
  for (const pt::OpInfo& info : pt::all_ops()) {
    for (pt::Form form : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
      const std::string text = module_for(info, form);
      EXPECT_EQ(pt::print(pt::parse(text)), text) << info.name;
    }
  }
}

TEST(PtoTextRoundTrip, FormRewritesParseBackAndKeepTheirOwnForm) {
  for (const pt::OpInfo& info : pt::all_ops()) {
    for (pt::Form from : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
      const pt::Module m = pt::parse(module_for(info, from));
      EXPECT_EQ(pt::print(pt::with_form(m, from)), pt::print(m)) << info.name;
      for (pt::Form to : {pt::Form::assembly, pt::Form::ssa, pt::Form::dps}) {
        const std::string text = pt::print(pt::with_form(m, to));
        SCOPED_TRACE(text);
        pt::Module again;
        ASSERT_NO_THROW(again = pt::parse(text));
        EXPECT_EQ(again.func.body.back().form, to);
        EXPECT_EQ(pt::print(again), text);
      }
    }
  }
}

TEST(PtoTextRoundTrip, TheTrowsumPageLinesInCanonicalForm) {
  const std::string body = "    %src = pto.alloc_tile : " + buf(kRow) + "\n    %tmp = pto.alloc_tile : " + buf(kRow) +
                           "\n    %dst = pto.alloc_tile : " + buf(kCol) + "\n";
  const std::string text = prologue() + body + "    pto.tassign %src, @tile(0x1000)\n" +
                           "    %d1 = trowsum %src : " + tile(kRow) + " -> " + tile(kCol) + "\n" +
                           "    %d2 = pto.trowsum %src, %tmp : (" + tile(kRow) + ", " + tile(kRow) + ") -> " +
                           tile(kCol) + "\n" + "    pto.trowsum ins(%src, %tmp : " + buf(kRow) + ", " + buf(kRow) +
                           ") outs(%dst : " + buf(kCol) + ")\n    return\n  }\n}\n";
  const pt::Module m = pt::parse(text);
  EXPECT_EQ(pt::print(m), text);
  ASSERT_EQ(m.func.body.size(), 14u);
  EXPECT_EQ(m.func.body[10].addr, 0x1000u);
  EXPECT_EQ(m.func.body[11].ins.size(), 1u);  // the assembly form's tmp is implicit
  EXPECT_EQ(m.func.body[12].ins.size(), 2u);
  EXPECT_EQ(m.func.body[13].outs.size(), 1u);
}

TEST(PtoTextRoundTrip, TileAndTileBufAreOneTypeAndKeysMayBeOmittedOrReordered) {
  const std::string a = prologue() + "    %t = pto.alloc_tile : !pto.tile<dtype=f32, loc=vec, cols=64, rows=8>\n" +
                        "    return\n  }\n}\n";
  const std::string b = prologue() + "    %t = pto.alloc_tile : " + buf(kRow) + "\n    return\n  }\n}\n";
  EXPECT_TRUE(pt::parse(a) == pt::parse(b));
  EXPECT_EQ(pt::print(pt::parse(a)), b);
}

TEST(PtoTextRoundTrip, PtoasShortTileSpellingIsTheSameType) {
  const std::string a = prologue() + "    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>\n" +
                        "    %u = pto.alloc_tile : !pto.tile_buf<vec, 8x64xf32, valid=8x64>\n    return\n  }\n}\n";
  const std::string b = prologue() + "    %t = pto.alloc_tile : " + buf(kCol) + "\n    %u = pto.alloc_tile : " + buf(kRow) +
                        "\n    return\n  }\n}\n";
  EXPECT_TRUE(pt::parse(a) == pt::parse(b));
  EXPECT_EQ(error_of(with_body("    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x64xf32, valid=?x?>\n")),
            "10:62: a dynamic valid region '?' is not supported");
  EXPECT_EQ(error_of(with_body("    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x64, v_row=2>\n")),
            "10:46: bad tile shape '8x64': expected ROWSxCOLSxTYPE");
}

TEST(PtoTextRoundTrip, CommentsSemicolonsAndAliasesNormalise) {
  const std::string a = "// a comment\nmodule { # another\n func.func @k() { %c = arith.constant 0x10 : i64 ;\n"
                        " %f = arith.constant 1 : f32\n return } }";
  EXPECT_EQ(pt::print(pt::parse(a)),
            "module {\n  func.func @k() {\n    %c = arith.constant 16 : i64\n    %f = arith.constant 1.0 : f32\n"
            "    return\n  }\n}\n");
}

// ---- bad text: exact messages ------------------------------------------------------------------

std::string with_body(const std::string& body) { return prologue() + body + "    return\n  }\n}\n"; }
// The prologue has 9 lines, so the body's first statement is on line 10.

TEST(PtoTextErrors, UnknownOperation) {
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : " + buf(kRow) + "\n    pto.tfoo ins(%a : " + buf(kRow) +
                               ") outs(%a : " + buf(kRow) + ")\n")),
            "11:5: unknown operation 'pto.tfoo'");
  EXPECT_EQ(error_of(with_body("    %r = tfoo %x : " + tile(kRow) + " -> " + tile(kRow) + "\n")),
            "10:10: unknown operation 'tfoo'");
  EXPECT_EQ(error_of(with_body("    %r = pto.trowsum.x %x : " + tile(kRow) + " -> " + tile(kRow) + "\n")),
            "10:10: unknown operation 'pto.trowsum.x'");
}

TEST(PtoTextErrors, BadTypeKeyAndValue) {
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtyp=f32, rows=8, cols=64>\n")),
            "10:50: unknown tile type key 'dtyp'");
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : !pto.tile_buf<loc=ub, dtype=f32, rows=8, cols=64>\n")),
            "10:45: bad value 'ub' for tile type key 'loc'");
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, rows=8, cols=64>\n")),
            "10:27: tile type lacks key 'dtype'");
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, loc=vec>\n")),
            "10:50: tile type key 'loc' given twice");
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=6>\n")),
            "10:27: tile type: cols x element bytes must be a multiple of 32 for an unboxed tile");
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=64, v_row=?>\n")),
            "10:84: a dynamic valid region '?' is not supported");
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : !pto.tensor<8x8xf32>\n")), "10:27: unknown type '!pto.tensor'");
  EXPECT_EQ(error_of(with_body("    %a = pto.alloc_tile : !pto.tile<loc=vec, dtype=f32, rows=4294967295, cols=4294967295>\n")),
            "10:27: tile type: 4294967295 x 4294967295 f32 is larger than its space on any chip (262144 bytes)");
  EXPECT_EQ(error_of(with_body("    %q = pto.partition_view %tv, offsets = [%c8, %c0], sizes = [%c8, %c64] : "
                               "!pto.tensor_view<8x64xf32> -> !pto.partition_tensor_view<8x64xf32>\n")),
            "10:108: partition_view: the result must be a !pto.partition_tensor_view of the sizes, inside the view");
}

TEST(PtoTextErrors, UndefinedAndRedefinedValues) {
  EXPECT_EQ(error_of(with_body("    %d = pto.texp %nope : " + tile(kRow) + " -> " + tile(kRow) + "\n")),
            "10:19: undefined value '%nope'");
  EXPECT_EQ(error_of(with_body("    %c8 = arith.constant 3 : index\n")), "10:5: redefinition of '%c8'");
}

TEST(PtoTextErrors, WrongOperandCount) {
  const std::string a = "    %a = pto.alloc_tile : " + buf(kRow) + "\n";
  EXPECT_EQ(error_of(with_body(a + "    pto.tadd ins(%a : " + buf(kRow) + ") outs(%a : " + buf(kRow) + ")\n")),
            "11:5: wrong operand count for 'pto.tadd': 1 operands, expected 2");
  EXPECT_EQ(error_of(with_body(a + "    %d = trowsum %a, %a : (" + tile(kRow) + ", " + tile(kRow) + ") -> " + tile(kCol) + "\n")),
            "11:10: wrong operand count for 'trowsum': 2 operands, expected 1");
  EXPECT_EQ(error_of(with_body(a + "    pto.texp ins(%a : " + buf(kRow) + ") outs(%a, %a : " + buf(kRow) + ", " +
                               buf(kRow) + ")\n")),
            "11:5: wrong operand count for 'pto.texp': outs takes one operand");
  EXPECT_EQ(error_of(with_body(a + "    pto.texp ins(%a, %a : " + buf(kRow) + ") outs(%a : " + buf(kRow) + ")\n")),
            "11:5: 2 operands but 1 types");
}

TEST(PtoTextErrors, TypeMismatch) {
  const std::string a = "    %a = pto.alloc_tile : " + buf(kRow) + "\n";
  EXPECT_EQ(error_of(with_body(a + "    %d = pto.texp %a : " + tile(kCol) + " -> " + tile(kRow) + "\n")),
            "11:19: type mismatch for '%a': written " + tile(kCol) + ", defined as " + tile(kRow));
  EXPECT_EQ(error_of(with_body(a + "    %d = pto.tadds %a, %s : (" + tile(kRow) + ", f32) -> " +
                               tile(pto_text_test::kHalf) + "\n")),
            "11:10: type mismatch in 'pto.tadds': operand 1 is f32, the destination f16");
  EXPECT_EQ(error_of(with_body(a + "    pto.tload ins(%a : " + buf(kRow) + ") outs(%a : " + buf(kRow) + ")\n")),
            "11:5: type mismatch in 'pto.tload': tload takes a partition view into a tile");
}

TEST(PtoTextErrors, UnterminatedModuleAndFunction) {
  EXPECT_EQ(error_of("module {\n  func.func @k() {\n    return\n  }\n"), "5:1: unterminated module: expected '}'");
  EXPECT_EQ(error_of("module {\n  func.func @k() {\n"), "3:1: unterminated function: expected 'return'");
  EXPECT_EQ(error_of("module { func.func @k() { return } } }"), "1:38: unexpected '}' after the module");
  EXPECT_EQ(error_of(""), "1:1: expected 'module', found end of input");
}

TEST(PtoTextErrors, GarbageBytes) {
  EXPECT_EQ(error_of("module {\x01"), "1:9: unexpected byte 0x01");
  EXPECT_EQ(error_of(std::string("module {\0", 9)), "1:9: unexpected byte 0x00");
  EXPECT_EQ(error_of("\xff\xfe"), "1:1: unexpected byte 0xFF");
  EXPECT_EQ(error_of(with_body("    %q = arith.constant 1.5.5 : f32\n")), "10:25: bad float literal '1.5.5'");
  EXPECT_EQ(error_of(with_body("    %q = arith.constant 99999999999999999999 : index\n")),
            "10:25: the constant '99999999999999999999' is too large");
}

TEST(PtoTextErrors, HugeTextAndDeepNesting) {
  const std::string huge(pt::kMaxTextBytes + 1, ' ');
  EXPECT_EQ(error_of(huge), "1:1: the text has 4194305 bytes, above the limit of 4194304");
  // The grammar has no recursion: deep nesting is one unexpected token, however deep.
  const std::string deep = "module { func.func @k(" + std::string(100000, '(') + std::string(100000, ')') + ") { return } }";
  EXPECT_EQ(error_of(deep), "1:23: expected an argument %name, found '('");
  const std::string types = with_body("    %a = pto.alloc_tile : !pto.tile_buf<" + std::string(100000, '<') + ">\n");
  EXPECT_EQ(error_of(types), "10:41: unknown tile type key '<'");
}

}  // namespace
