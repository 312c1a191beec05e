// fpgakern XRT emulation: xrt::queue, as XRT's experimental/xrt_queue.h declares it
// (XRT 2.14 and later; docs/runtime.md "The XRT native API"): operations run in the order
// they are enqueued, by one worker thread per queue; enqueue returns a std::shared_future
// of the operation's result, and a queue can wait for another's future or event. The
// emulation library serializes its API calls, so a queue's operations may overlap the
// host's own calls safely.
#ifndef FPGAKERN_EMU_XRT_QUEUE_H_
#define FPGAKERN_EMU_XRT_QUEUE_H_

#include <functional>
#include <future>
#include <memory>
#include <utility>

namespace xrt {

class queue_impl;

class queue {
  public:
    // A type-erased future: what enqueue returns converts to it.
    class event {
      public:
        event() = default;
        template <typename ValueType>
        event(std::shared_future<ValueType> e)  // NOLINT: implicit, as in XRT
            : wait_(std::make_shared<std::function<void()>>([f = std::move(e)] { f.wait(); })) {}

        explicit operator bool() const { return wait_ != nullptr; }
        void wait() const {
            if (wait_) (*wait_)();
        }

      private:
        std::shared_ptr<std::function<void()>> wait_;
    };

    queue();

    // Run `c` (no arguments) after every operation enqueued before it; its result, or
    // its exception, arrives through the returned future.
    template <typename Callable>
    auto enqueue(Callable&& c) {
        using return_type = decltype(c());
        auto task = std::make_shared<std::packaged_task<return_type()>>(
            [cc = std::forward<Callable>(c)]() mutable { return cc(); });
        std::shared_future<return_type> f{task->get_future()};
        add_task([task] { (*task)(); });
        return f;
    }

    // Let the operations enqueued after this wait for another queue's operation.
    template <typename ValueType>
    auto enqueue(std::shared_future<ValueType> sf) {
        return enqueue([ev = event{std::move(sf)}] { ev.wait(); });
    }
    auto enqueue(event ev) {
        return enqueue([e = std::move(ev)] { e.wait(); });
    }

    queue_impl* get_impl() const { return impl_.get(); }

  private:
    void add_task(std::function<void()> task);
    std::shared_ptr<queue_impl> impl_;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_QUEUE_H_
