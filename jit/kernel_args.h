// The argument block of a lowered kernel, described once as a table of fields: the struct
// text the generated source declares, the packing of a launch's values into it and their
// validation all come from the same table, so the three can never disagree.
//
// Every field is one or more 8-byte words (pointers, int64, doubles), so the CUDA kernel (the
// block passed by value) and the host loop (by pointer) agree on the layout without padding
// rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace dualjit::jit {

enum class ArgKind { Int64, Pointer, Doubles };

struct ArgField {
  std::string name;
  ArgKind kind = ArgKind::Pointer;
  std::string c_type;  // pointee spelling for pointers ("const double*"); ignored otherwise
  int count = 1;       // words: an array of `count` pointers or doubles
  // Pointers: must be non-null whenever the launch has work. Doubles: exactly `count` values
  // must be given (else none: a kernel without uniforms still has one word).
  bool required = false;
  std::string what;    // what it holds, for error messages ("off-diagonal block values")
  bool array = false;  // declared as an array (indexed in the text) even when count is 1
  // Pointers read only through elements (per-element params): required only when the launch
  // has elements, so that a node-owning launch over a term with none (a rank of a partition
  // that holds no boundary node) still runs and writes its zero rows.
  bool per_element = false;
};

class ArgTable {
 public:
  ArgTable& add(ArgField field);  // throws std::logic_error for a repeated name
  const std::vector<ArgField>& fields() const { return fields_; }
  const ArgField* find(std::string_view name) const;
  size_t words() const { return words_; }
  // `struct <type> { ... };` with one member per field, in table order.
  std::string struct_text(const std::string& type) const;

 private:
  std::vector<ArgField> fields_;
  size_t words_ = 0;
};

// The values of one launch, by field name. Unset pointers are null, unset integers 0; a name
// set twice holds the later value. A few dozen entries in a flat list, appended without a
// search, a single pointer held without a vector: building and packing them is every launch's
// host cost.
class ArgValues {
 public:
  ArgValues& set(std::string_view name, const void* pointer);
  ArgValues& set(std::string_view name, int64_t value);
  ArgValues& set(std::string_view name, std::vector<const void*> pointers);
  ArgValues& set_doubles(std::string_view name, std::vector<double> values);

  int64_t int64(std::string_view name) const;        // 0 when unset
  const void* pointer(std::string_view name) const;  // the first pointer; null when unset
  bool has(std::string_view name) const { return find(name) != nullptr; }

  using Value = std::variant<int64_t, const void*, std::vector<const void*>, std::vector<double>>;
  const std::vector<std::pair<std::string, Value>>& values() const { return values_; }
  const Value* find(std::string_view name) const;  // null when unset

 private:
  Value& append(std::string_view name);
  std::vector<std::pair<std::string, Value>> values_;
};

// The words of the block. Throws std::invalid_argument starting with `label` (the kernel) for a
// name the table does not have, a value of the wrong kind or count, or, when `has_work`, a
// required pointer that is null (a per-element one only when "n_elements" is positive).
std::vector<uint64_t> pack_args(const ArgTable& table, const ArgValues& values,
                                const std::string& label, bool has_work);

}  // namespace dualjit::jit
