// The a2a3 side: BinIntrinsicDesc and UnaryDesc (the vector unit's binary and unary issue
// descriptors) and their validation by the core's validators (tilefw/desc/validate_vector.hpp),
// PTO's ValidateBinIntrinsicDesc / IsBinIntrinsicDescValid as Python functions. The report's
// message is the core's describe() line, the one the conformance tool prints.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.hpp"
#include "tilefw/base/dtype.hpp"
#include "tilefw/desc/describe.hpp"
#include "tilefw/desc/validate_vector.hpp"

namespace py = pybind11;

namespace tilefw::python {
namespace {

DType dtype_of_name(const std::string& name) {
  for (DType t : kAllDTypes) {
    if (name == dtype_name(t)) return t;
  }
  throw py::value_error("dtype: \"" + name + "\" is not one of f16, bf16, f32, i8, u8, i16, u16, i32, u32");
}

template <class Op, size_t N>
Op op_of_name(const std::string& name, const Op (&ops)[N]) {
  for (Op o : ops) {
    if (name == desc::op_name(o)) return o;
  }
  throw py::value_error("op: \"" + name + "\" is not a vector op of this descriptor");
}
constexpr desc::BinaryOp kBinaryOps[] = {desc::BinaryOp::vadd, desc::BinaryOp::vsub, desc::BinaryOp::vmul,
                                         desc::BinaryOp::vdiv, desc::BinaryOp::vmax, desc::BinaryOp::vmin};
constexpr desc::UnaryOp kUnaryOps[] = {desc::UnaryOp::vabs,  desc::UnaryOp::vexp, desc::UnaryOp::vln,
                                       desc::UnaryOp::vsqrt, desc::UnaryOp::vrsqrt, desc::UnaryOp::vrec,
                                       desc::UnaryOp::vrelu};

/// A 128-bit Python int (lane k = bit k), or None for every lane.
desc::Mask128 mask_of(const py::object& m) {
  if (m.is_none()) return desc::Mask128::all();
  const py::int_ v = m.cast<py::int_>();
  const py::int_ low64(~uint64_t{0});
  const uint64_t lo = v.attr("__and__")(low64).cast<uint64_t>();
  const uint64_t hi = v.attr("__rshift__")(64).attr("__and__")(low64).cast<uint64_t>();
  return desc::Mask128{hi, lo};
}

py::dict report_dict(const desc::DescReport& r) {
  char line[256];
  desc::describe(r, line, sizeof line);
  py::dict d;
  d["status"] = status_name(r.status);
  d["status_class"] = status_class_name(status_class(r.status));
  d["field"] = r.field;
  d["value"] = r.value;
  d["limit"] = r.limit;
  d["byte_offset"] = r.byte_offset;
  d["repeat_index"] = r.repeat_index;
  d["block_index"] = r.block_index;
  d["other"] = r.other;
  d["repeats"] = r.repeats;
  d["nop"] = r.nop;
  d["message"] = std::string(line);
  return d;
}

void operand(py::class_<desc::BinIntrinsicDesc>& k, const char* name, desc::Operand desc::BinIntrinsicDesc::*member) {
  k.def_property(
      name, [member](const desc::BinIntrinsicDesc& d) { return (d.*member).offset; },
      [member](desc::BinIntrinsicDesc& d, uint32_t off) { (d.*member).offset = off; }, "UB byte offset");
}

void bind_binary(py::module_& m) {
  using D = desc::BinIntrinsicDesc;
  py::class_<D> k(m, "BinIntrinsicDesc", "One binary vector issue (vadd/vsub/vmul/vdiv/vmax/vmin).");
  k.def(py::init<>())
      .def_property("op", [](const D& d) { return desc::op_name(d.op); },
                    [](D& d, const std::string& s) { d.op = op_of_name(s, kBinaryOps); })
      .def_readwrite("repeat", &D::repeat)
      .def_readwrite("dst_block_stride", &D::dst_block_stride)
      .def_readwrite("src0_block_stride", &D::src0_block_stride)
      .def_readwrite("src1_block_stride", &D::src1_block_stride)
      .def_readwrite("dst_repeat_stride", &D::dst_repeat_stride)
      .def_readwrite("src0_repeat_stride", &D::src0_repeat_stride)
      .def_readwrite("src1_repeat_stride", &D::src1_repeat_stride)
      .def_property("mask_mode", [](const D& d) { return d.mask_mode == desc::MaskMode::count ? "count" : "normal"; },
                    [](D& d, const std::string& s) {
                      if (s != "normal" && s != "count") throw py::value_error("mask_mode: normal or count");
                      d.mask_mode = s == "count" ? desc::MaskMode::count : desc::MaskMode::normal;
                    })
      .def_readwrite("vector_count", &D::vector_count)
      .def_readwrite("tail_elements", &D::tail_elements)
      .def_readwrite("repeat_stride_mode", &D::repeat_stride_mode)
      .def_readwrite("stride_size_mode", &D::stride_size_mode);
  operand(k, "dst", &D::dst);
  operand(k, "src0", &D::src0);
  operand(k, "src1", &D::src1);
  m.def("validate_bin_intrinsic_desc",
        [](const D& d, const std::string& dtype, const py::object& mask) {
          return report_dict(desc::validate(d, dtype_of_name(dtype), mask_of(mask)));
        },
        py::arg("desc"), py::arg("dtype") = "f16", py::arg("mask") = py::none(),
        "The core's full report of one binary issue (ValidateBinIntrinsicDesc).");
}

void bind_unary(py::module_& m) {
  using D = desc::UnaryDesc;
  py::class_<D> k(m, "UnaryDesc", "One unary vector issue (vabs/vexp/vln/vsqrt/vrsqrt/vrec/vrelu).");
  k.def(py::init<>())
      .def_property("op", [](const D& d) { return desc::op_name(d.op); },
                    [](D& d, const std::string& s) { d.op = op_of_name(s, kUnaryOps); })
      .def_readwrite("repeat", &D::repeat)
      .def_readwrite("dst_block_stride", &D::dst_block_stride)
      .def_readwrite("src_block_stride", &D::src_block_stride)
      .def_readwrite("dst_repeat_stride", &D::dst_repeat_stride)
      .def_readwrite("src_repeat_stride", &D::src_repeat_stride)
      .def_property("dst", [](const D& d) { return d.dst.offset; }, [](D& d, uint32_t o) { d.dst.offset = o; })
      .def_property("src", [](const D& d) { return d.src.offset; }, [](D& d, uint32_t o) { d.src.offset = o; });
  m.def("validate_unary_desc",
        [](const D& d, const std::string& dtype, const py::object& mask) {
          return report_dict(desc::validate(d, dtype_of_name(dtype), mask_of(mask)));
        },
        py::arg("desc"), py::arg("dtype") = "f16", py::arg("mask") = py::none(),
        "The core's full report of one unary issue.");
}

}  // namespace

void bind_a2a3(py::module_& m) {
  bind_binary(m);
  bind_unary(m);
}

}  // namespace tilefw::python
