// Backend-independent helpers of the port facade, built on map_memory.
#include "tilefw/port/port.hpp"

#include <cstring>

namespace tilefw::port {

Status copy_to_device(uint64_t device_address, const void* source, size_t bytes) noexcept {
  if (bytes == 0) return Status::ok;
  if (source == nullptr) return Status::invalid_argument;
  TILEFW_TRY_ASSIGN(uint8_t* const destination, map_memory(device_address, bytes));
  std::memcpy(destination, source, bytes);
  clean_dcache(destination, bytes);
  return Status::ok;
}

Status copy_from_device(void* destination, uint64_t device_address, size_t bytes) noexcept {
  if (bytes == 0) return Status::ok;
  if (destination == nullptr) return Status::invalid_argument;
  TILEFW_TRY_ASSIGN(uint8_t* const source, map_memory(device_address, bytes));
  invalidate_dcache(source, bytes);
  std::memcpy(destination, source, bytes);
  return Status::ok;
}

}  // namespace tilefw::port
