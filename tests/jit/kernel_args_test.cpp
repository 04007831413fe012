// The argument table: one description gives the struct text, the packing and the checks.
#include <doctest/doctest.h>

#include <bit>
#include <stdexcept>

#include "jit/kernel_args.h"

using namespace dualjit::jit;

namespace {

ArgTable table() {
  ArgTable t;
  t.add({"n", ArgKind::Int64, "", 1, false, "count"})
      .add({"field", ArgKind::Pointer, "const double*", 2, true, "input field", true})
      .add({"out", ArgKind::Pointer, "double*", 1, true, "output"})
      .add({"maybe", ArgKind::Pointer, "const int*", 1, false, "optional"})
      .add({"uniform", ArgKind::Doubles, "", 2, true, "uniforms", true});
  return t;
}

}  // namespace

TEST_CASE("argument table: struct text in table order, arrays where declared") {
  const ArgTable t = table();
  CHECK(t.words() == 7);
  CHECK(t.struct_text("A") ==
        "struct A {\n  long long n;\n  const double* field[2];\n  double* out;\n"
        "  const int* maybe;\n  double uniform[2];\n};\n");
  ArgTable one;
  one.add({"field", ArgKind::Pointer, "const double*", 1, true, "input field", true});
  CHECK(one.struct_text("B") == "struct B {\n  const double* field[1];\n};\n");
  CHECK_THROWS_AS(one.add({"field", ArgKind::Int64, "", 1, false, ""}), std::logic_error);
  CHECK_THROWS_AS(one.add({"k", ArgKind::Int64, "", 3, false, ""}), std::logic_error);
}

TEST_CASE("argument table: values packed by name, in table order") {
  double x = 0, y = 0, out = 0;
  ArgValues v;
  v.set("n", int64_t{42}).set("field", std::vector<const void*>{&x, &y}).set("out", &out);
  v.set_doubles("uniform", {1.5, -2.0});
  const auto w = pack_args(table(), v, "kernel 'k'", true);
  REQUIRE(w.size() == 7);
  CHECK(w[0] == 42);
  CHECK(w[1] == reinterpret_cast<uint64_t>(&x));
  CHECK(w[2] == reinterpret_cast<uint64_t>(&y));
  CHECK(w[3] == reinterpret_cast<uint64_t>(&out));
  CHECK(w[4] == 0);  // an optional pointer left unset
  CHECK(std::bit_cast<double>(w[5]) == 1.5);
  CHECK(std::bit_cast<double>(w[6]) == -2.0);
}

TEST_CASE("argument table: any order of values packs the same, a name set twice the later") {
  double x = 0, y = 0, out = 0, other = 0;
  ArgValues in_order;
  in_order.set("n", int64_t{7}).set("field", std::vector<const void*>{&x, &y}).set("out", &out);
  in_order.set("maybe", &other).set_doubles("uniform", {0.5, 3.0});
  ArgValues reversed;
  reversed.set_doubles("uniform", {0.5, 3.0}).set("maybe", &other).set("out", &y);
  reversed.set("field", std::vector<const void*>{&x, &y}).set("n", int64_t{9}).set("out", &out);
  reversed.set("n", int64_t{7});
  CHECK(reversed.int64("n") == 7);
  CHECK(reversed.pointer("out") == &out);
  CHECK(pack_args(table(), reversed, "kernel 'k'", true) ==
        pack_args(table(), in_order, "kernel 'k'", true));
}

TEST_CASE("argument table: misuse names the kernel and the field") {
  double x = 0, out = 0;
  const auto good = [&] {
    ArgValues v;
    v.set("n", int64_t{1}).set("field", std::vector<const void*>{&x, &x}).set("out", &out);
    v.set_doubles("uniform", {1.0, 2.0});
    return v;
  };
  const ArgTable t = table();
  ArgValues v = good();
  v.set("typo", &x);
  CHECK_THROWS_WITH_AS(pack_args(t, v, "kernel 'k'", true),
                       doctest::Contains("kernel 'k': no argument named 'typo'"),
                       std::invalid_argument);
  v = good();
  v.set("out", static_cast<const void*>(nullptr));
  CHECK_THROWS_WITH_AS(pack_args(t, v, "kernel 'k'", true),
                       doctest::Contains("output ('out') is null"), std::invalid_argument);
  CHECK_NOTHROW(pack_args(t, v, "kernel 'k'", false));  // no work: null outputs are fine
  v = good();
  v.set("field", std::vector<const void*>{&x});
  CHECK_THROWS_WITH_AS(pack_args(t, v, "kernel 'k'", true),
                       doctest::Contains("expected 2 input field"), std::invalid_argument);
  v = good();
  v.set_doubles("uniform", {1.0});
  CHECK_THROWS_WITH_AS(pack_args(t, v, "kernel 'k'", true),
                       doctest::Contains("expected 2 uniforms"), std::invalid_argument);
  v = good();
  v.set("n", &x);
  CHECK_THROWS_WITH_AS(pack_args(t, v, "kernel 'k'", true), doctest::Contains("takes an integer"),
                       std::invalid_argument);
}

TEST_CASE("argument packing: a per-element pointer is needed only when there are elements") {
  ArgTable t;
  t.add({"n_elements", ArgKind::Int64, "", 1, false, "element count"})
      .add({"out", ArgKind::Pointer, "double*", 1, true, "output"})
      .add({"params", ArgKind::Pointer, "const double*", 1, true, "params array", false, true});
  double x = 0;
  ArgValues v;
  v.set("out", &x);
  v.set("n_elements", int64_t{0});
  // A node-owning launch over a term with no elements still has rows to write.
  CHECK_NOTHROW(pack_args(t, v, "kernel 'k'", true));
  v.set("n_elements", int64_t{3});
  CHECK_THROWS_WITH_AS(pack_args(t, v, "kernel 'k'", true),
                       doctest::Contains("params array ('params') is null"), std::invalid_argument);
  v.set("out", static_cast<const void*>(nullptr));
  v.set("n_elements", int64_t{0});
  v.set("params", &x);
  CHECK_THROWS_WITH_AS(pack_args(t, v, "kernel 'k'", true),
                       doctest::Contains("output ('out') is null"), std::invalid_argument);
}
