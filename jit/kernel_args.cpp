#include "jit/kernel_args.h"

#include <bit>
#include <sstream>
#include <stdexcept>

namespace dualjit::jit {

ArgTable& ArgTable::add(ArgField field) {
  if (find(field.name)) throw std::logic_error("argument table: field '" + field.name + "' twice");
  if (field.count < 1) field.count = 1;
  if (field.kind == ArgKind::Int64 && field.count > 1)
    throw std::logic_error("argument table: field '" + field.name + "': Int64 fields are scalars");
  fields_.push_back(std::move(field));
  return *this;
}

const ArgField* ArgTable::find(std::string_view name) const {
  for (const ArgField& f : fields_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

size_t ArgTable::words() const {
  size_t n = 0;
  for (const ArgField& f : fields_) n += static_cast<size_t>(f.count);
  return n;
}

std::string ArgTable::struct_text(const std::string& type) const {
  std::ostringstream os;
  os << "struct " << type << " {\n";
  for (const ArgField& f : fields_) {
    const std::string c_type = f.kind == ArgKind::Int64     ? "long long"
                               : f.kind == ArgKind::Doubles ? "double"
                                                            : f.c_type;
    os << "  " << c_type << ' ' << f.name;
    if (f.array || f.count > 1) os << '[' << f.count << ']';
    os << ";\n";
  }
  os << "};\n";
  return os.str();
}

ArgValues& ArgValues::set(const std::string& name, const void* pointer) {
  values_[name] = std::vector<const void*>{pointer};
  return *this;
}

ArgValues& ArgValues::set(const std::string& name, int64_t value) {
  values_[name] = value;
  return *this;
}

ArgValues& ArgValues::set(const std::string& name, std::vector<const void*> pointers) {
  values_[name] = std::move(pointers);
  return *this;
}

ArgValues& ArgValues::set_doubles(const std::string& name, std::vector<double> values) {
  values_[name] = std::move(values);
  return *this;
}

int64_t ArgValues::int64(std::string_view name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return 0;
  const int64_t* v = std::get_if<int64_t>(&it->second);
  if (!v) throw std::invalid_argument("argument '" + std::string(name) + "' is not an integer");
  return *v;
}

const void* ArgValues::pointer(std::string_view name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return nullptr;
  const auto* v = std::get_if<std::vector<const void*>>(&it->second);
  if (!v) throw std::invalid_argument("argument '" + std::string(name) + "' is not a pointer");
  return v->empty() ? nullptr : v->front();
}

std::vector<uint64_t> pack_args(const ArgTable& table, const ArgValues& values,
                                const std::string& label, bool has_work) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(label + ": " + what);
  };
  for (const auto& [name, _] : values.values()) {
    if (!table.find(name)) fail("no argument named '" + name + "'");
  }
  std::vector<uint64_t> words;
  words.reserve(table.words());
  for (const ArgField& f : table.fields()) {
    const auto it = values.values().find(f.name);
    const std::string what = f.what.empty() ? f.name : f.what + " ('" + f.name + "')";
    switch (f.kind) {
      case ArgKind::Int64: {
        if (it != values.values().end() && !std::holds_alternative<int64_t>(it->second))
          fail(what + " takes an integer");
        words.push_back(static_cast<uint64_t>(values.int64(f.name)));
        break;
      }
      case ArgKind::Pointer: {
        std::vector<const void*> ptrs;
        if (it != values.values().end()) {
          const auto* p = std::get_if<std::vector<const void*>>(&it->second);
          if (!p) fail(what + " takes pointers");
          ptrs = *p;
        }
        if (ptrs.size() > static_cast<size_t>(f.count) ||
            (f.count > 1 && !ptrs.empty() && ptrs.size() != static_cast<size_t>(f.count)))
          fail("expected " + std::to_string(f.count) + " " + what + ", got " +
               std::to_string(ptrs.size()));
        for (int i = 0; i < f.count; ++i) {
          const void* p = i < static_cast<int>(ptrs.size()) ? ptrs[i] : nullptr;
          const bool needed = has_work && (!f.per_element || values.int64("n_elements") > 0);
          if (!p && f.required && needed) {
            fail(what + (f.count > 1 ? " " + std::to_string(i) : std::string()) + " is null");
          }
          words.push_back(reinterpret_cast<uint64_t>(p));
        }
        break;
      }
      case ArgKind::Doubles: {
        std::vector<double> d;
        if (it != values.values().end()) {
          const auto* p = std::get_if<std::vector<double>>(&it->second);
          if (!p) fail(what + " takes doubles");
          d = *p;
        }
        const size_t want = f.required ? static_cast<size_t>(f.count) : 0;
        if (d.size() != want) {
          fail("expected " + std::to_string(want) + " " + what + ", got " +
               std::to_string(d.size()));
        }
        for (int i = 0; i < f.count; ++i)
          words.push_back(i < static_cast<int>(d.size()) ? std::bit_cast<uint64_t>(d[i]) : 0);
        break;
      }
    }
  }
  return words;
}

}  // namespace dualjit::jit
