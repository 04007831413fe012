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
  words_ += static_cast<size_t>(field.count);
  fields_.push_back(std::move(field));
  return *this;
}

const ArgField* ArgTable::find(std::string_view name) const {
  for (const ArgField& f : fields_) {
    if (f.name == name) return &f;
  }
  return nullptr;
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

const ArgValues::Value* ArgValues::find(std::string_view name) const {
  for (auto it = values_.rbegin(); it != values_.rend(); ++it) {
    if (it->first == name) return &it->second;
  }
  return nullptr;
}

ArgValues::Value& ArgValues::append(std::string_view name) {
  if (values_.empty()) values_.reserve(32);
  return values_.emplace_back(std::string(name), Value{}).second;
}

ArgValues& ArgValues::set(std::string_view name, const void* pointer) {
  append(name) = pointer;
  return *this;
}

ArgValues& ArgValues::set(std::string_view name, int64_t value) {
  append(name) = value;
  return *this;
}

ArgValues& ArgValues::set(std::string_view name, std::vector<const void*> pointers) {
  append(name) = std::move(pointers);
  return *this;
}

ArgValues& ArgValues::set_doubles(std::string_view name, std::vector<double> values) {
  append(name) = std::move(values);
  return *this;
}

int64_t ArgValues::int64(std::string_view name) const {
  const Value* v = find(name);
  if (!v) return 0;
  const int64_t* i = std::get_if<int64_t>(v);
  if (!i) throw std::invalid_argument("argument '" + std::string(name) + "' is not an integer");
  return *i;
}

const void* ArgValues::pointer(std::string_view name) const {
  const Value* v = find(name);
  if (!v) return nullptr;
  if (const auto* one = std::get_if<const void*>(v)) return *one;
  const auto* many = std::get_if<std::vector<const void*>>(v);
  if (!many) throw std::invalid_argument("argument '" + std::string(name) + "' is not a pointer");
  return many->empty() ? nullptr : many->front();
}

std::vector<uint64_t> pack_args(const ArgTable& table, const ArgValues& values,
                                const std::string& label, bool has_work) {
  // Launches are on the hot path (a kernel of tens of microseconds each): the messages are
  // built only on failure.
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(label + ": " + what);
  };
  const auto what = [](const ArgField& f) {
    return f.what.empty() ? f.name : f.what + " ('" + f.name + "')";
  };
  // Each value's field, the later of a name set twice winning. Producers set their values
  // mostly in table order, so the search for the next field starts after the last one found:
  // one comparison per value instead of a scan of the table.
  const std::vector<ArgField>& fields = table.fields();
  const auto& set = values.values();
  std::vector<const ArgValues::Value*> bound(fields.size(), nullptr);
  size_t cursor = 0;
  for (const auto& [name, value] : set) {
    size_t f = 0;
    for (; f < fields.size(); ++f) {
      const size_t at = cursor + f < fields.size() ? cursor + f : cursor + f - fields.size();
      if (fields[at].name == name) {
        bound[at] = &value;
        cursor = at + 1 < fields.size() ? at + 1 : 0;
        break;
      }
    }
    if (f == fields.size()) fail("no argument named '" + name + "'");
  }
  const bool has_elements = values.int64("n_elements") > 0;
  std::vector<uint64_t> words;
  words.reserve(table.words());
  for (size_t fi = 0; fi < fields.size(); ++fi) {
    const ArgField& f = fields[fi];
    const ArgValues::Value* it = bound[fi];
    switch (f.kind) {
      case ArgKind::Int64: {
        const int64_t* v = it ? std::get_if<int64_t>(it) : nullptr;
        if (it && !v) fail(what(f) + " takes an integer");
        words.push_back(static_cast<uint64_t>(v ? *v : 0));
        break;
      }
      case ArgKind::Pointer: {
        const void* const* one = it ? std::get_if<const void*>(it) : nullptr;
        const std::vector<const void*>* many =
            it ? std::get_if<std::vector<const void*>>(it) : nullptr;
        if (it && !one && !many) fail(what(f) + " takes pointers");
        const size_t n = one ? 1 : many ? many->size() : 0;
        if (n > static_cast<size_t>(f.count) || (f.count > 1 && n > 0 && n != size_t(f.count)))
          fail("expected " + std::to_string(f.count) + " " + what(f) + ", got " +
               std::to_string(n));
        const bool needed = has_work && (!f.per_element || has_elements);
        for (int i = 0; i < f.count; ++i) {
          const void* p = size_t(i) >= n ? nullptr : one ? *one : (*many)[i];
          if (!p && f.required && needed)
            fail(what(f) + (f.count > 1 ? " " + std::to_string(i) : std::string()) + " is null");
          words.push_back(reinterpret_cast<uint64_t>(p));
        }
        break;
      }
      case ArgKind::Doubles: {
        const std::vector<double>* d = it ? std::get_if<std::vector<double>>(it) : nullptr;
        if (it && !d) fail(what(f) + " takes doubles");
        const size_t n = d ? d->size() : 0;
        const size_t want = f.required ? static_cast<size_t>(f.count) : 0;
        if (n != want)
          fail("expected " + std::to_string(want) + " " + what(f) + ", got " + std::to_string(n));
        for (int i = 0; i < f.count; ++i)
          words.push_back(size_t(i) < n ? std::bit_cast<uint64_t>((*d)[i]) : 0);
        break;
      }
    }
  }
  return words;
}

}  // namespace dualjit::jit
