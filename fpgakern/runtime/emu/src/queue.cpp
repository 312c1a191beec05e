// fpgakern's XRT emulation library: xrt::queue (internal.h lists the library's files).
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "experimental/xrt_queue.h"

namespace xrt {

// One worker thread running the queue's tasks in order; it finishes the tasks enqueued
// before the queue's last handle goes, then stops.
class queue_impl {
  public:
    queue_impl() : worker_([this] { work(); }) {}
    ~queue_impl() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        ready_.notify_one();
        worker_.join();
    }
    void add(std::function<void()> task) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            tasks_.push_back(std::move(task));
        }
        ready_.notify_one();
    }

  private:
    void work() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
                if (tasks_.empty()) return;
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();  // a packaged_task: its exception goes to its future
        }
    }

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    bool stop_ = false;
    std::thread worker_;
};

queue::queue() : impl_(std::make_shared<queue_impl>()) {}

void queue::add_task(std::function<void()> task) { impl_->add(std::move(task)); }

}  // namespace xrt
