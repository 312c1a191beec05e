// fpgakern XRT emulation: xrt::xclbin, as XRT's experimental/xrt_xclbin.h declares it
// (signatures checked against XRT's; docs/runtime.md "The XRT native API"):
// an .xclbin read from a file, its kernels, their arguments and compute units, and the
// memories of MEM_TOPOLOGY (GROUP_TOPOLOGY when the file has it, as XRT reads it).
#ifndef FPGAKERN_EMU_XRT_XCLBIN_H_
#define FPGAKERN_EMU_XRT_XCLBIN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xrt/xrt_uuid.h"

typedef void* xrtXclbinHandle;

namespace xrt {

class xclbin_impl;

class xclbin {
  public:
    enum class target_type { hw, sw_emu, hw_emu };

    class mem {
      public:
        enum class memory_type : uint8_t {
            ddr3,
            ddr4,
            dram,
            streaming,
            preallocated_global,
            are,
            hbm,
            bram,
            uram,
            streaming_connection,
            host,
        };
        mem() = default;
        std::string get_tag() const { return tag_; }
        uint64_t get_base_address() const { return base_; }
        uint64_t get_size_kb() const { return size_kb_; }
        bool get_used() const { return used_; }
        memory_type get_type() const { return type_; }
        int32_t get_index() const { return index_; }
        explicit operator bool() const { return index_ >= 0; }

      private:
        friend class xclbin_impl;
        std::string tag_;
        uint64_t base_ = 0, size_kb_ = 0;
        bool used_ = false;
        memory_type type_ = memory_type::ddr4;
        int32_t index_ = -1;
    };

    class arg {
      public:
        arg() = default;
        std::string get_name() const { return name_; }
        std::vector<mem> get_mems() const { return mems_; }
        std::string get_port() const { return port_; }
        uint64_t get_size() const { return size_; }
        uint64_t get_offset() const { return offset_; }
        std::string get_host_type() const { return host_type_; }
        size_t get_index() const { return index_; }
        explicit operator bool() const { return !name_.empty(); }

      private:
        friend class xclbin_impl;
        std::string name_, port_, host_type_;
        std::vector<mem> mems_;
        uint64_t size_ = 0, offset_ = 0;
        size_t index_ = 0;
    };

    class ip {
      public:
        enum class control_type : uint8_t { hs = 0, chain = 1, none = 2, fa = 5 };
        ip() = default;
        std::string get_name() const { return name_; }
        control_type get_control_type() const { return control_; }
        size_t get_num_args() const { return args_.size(); }
        std::vector<arg> get_args() const { return args_; }
        arg get_arg(int32_t index) const;
        uint64_t get_base_address() const { return base_; }
        uint64_t get_size() const { return 0x10000; }
        explicit operator bool() const { return !name_.empty(); }

      private:
        friend class xclbin_impl;
        std::string name_;
        control_type control_ = control_type::hs;
        std::vector<arg> args_;
        uint64_t base_ = 0;
    };

    class kernel {
      public:
        enum class kernel_type : uint8_t { none, pl, ps, dpu };
        kernel() = default;
        std::string get_name() const { return name_; }
        kernel_type get_type() const { return kernel_type::pl; }
        std::vector<ip> get_cus() const { return cus_; }
        // The CUs whose names match `name` (a regular expression, as in XRT).
        std::vector<ip> get_cus(const std::string& name) const;
        ip get_cu(const std::string& name) const;
        size_t get_num_args() const { return args_.size(); }
        std::vector<arg> get_args() const { return args_; }
        arg get_arg(int32_t index) const;
        explicit operator bool() const { return !name_.empty(); }

      private:
        friend class xclbin_impl;
        std::string name_;
        std::vector<ip> cus_;
        std::vector<arg> args_;
    };

    xclbin() = default;
    // Reads the file; throws std::runtime_error when it is missing or not an xclbin.
    explicit xclbin(const std::string& filename);
    explicit xclbin(const std::vector<char>& data);

    std::vector<kernel> get_kernels() const;
    kernel get_kernel(const std::string& name) const;
    std::vector<ip> get_ips() const;
    ip get_ip(const std::string& name) const;
    std::vector<mem> get_mems() const;
    std::string get_xsa_name() const;
    uuid get_uuid() const;
    target_type get_target_type() const;

    explicit operator bool() const { return handle_ != nullptr; }
    const std::shared_ptr<xclbin_impl>& get_handle() const { return handle_; }

  private:
    std::shared_ptr<xclbin_impl> handle_;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_XCLBIN_H_
