#include "backends/cpu/thread_pool.hpp"

#include "backends/cpu/placement.hpp"
#include "backends/cpu/poll.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace kbench::cpu {

thread_pool::thread_pool(unsigned workers) {
  if (workers == 0) workers = std::max(1U, std::thread::hardware_concurrency());
  // Loop 0 never runs: every claim word starts as "claimed in loop 0".
  m_claims = std::make_unique<claim_word[]>(workers);
  for (unsigned c = 0; c < workers; ++c) m_claims[c].value.store(finished_in(0), std::memory_order_relaxed);
  for (unsigned w = 0; w < workers; ++w) m_thread_cpu.push_back(cpu_for_pool_thread(w));
  for (unsigned i = 1; i < workers; ++i) {
    m_threads.emplace_back([this, i] { worker_loop(i); });
  }
}

thread_pool::~thread_pool() {
  m_stopping.store(true, std::memory_order_relaxed);
  m_generation.fetch_add(1, std::memory_order_release);
  m_generation.notify_all();
  for (auto& t : m_threads) t.join();
}

bool thread_pool::run_chunk_if_unclaimed(std::uint64_t generation, std::size_t c) {
  claim_word& claim = m_claims[c];
  std::uint64_t unclaimed = unclaimed_in(generation);
  // Acquire pairs with the caller's release store of the word: the chunk's fields are then visible. They
  // stay as they are until the chunk won here is finished, since the caller starts no new loop before
  // every chunk is.
  if (!claim.value.compare_exchange_strong(unclaimed, running_in(generation), std::memory_order_acquire,
                                           std::memory_order_relaxed)) {
    return false;
  }
  try {
    claim.call(claim.state, claim.begin, claim.end);
  } catch (...) {
    const std::lock_guard lock(m_error_mutex);
    if (!m_error) m_error = std::current_exception();
  }
  claim.value.store(finished_in(generation), std::memory_order_relaxed);
  // Release: the chunk's writes (and m_error) are visible to the caller that sees the count reach 0.
  if (m_pending_chunks.fetch_sub(1, std::memory_order_acq_rel) == 1) m_pending_chunks.notify_all();
  return true;
}

namespace {
using loop_body = std::function<void(std::size_t, std::size_t)>;
void call_through_pointer(const void* state, std::size_t begin, std::size_t end) {
  (**static_cast<const loop_body* const*>(state))(begin, end);
}
}  // namespace

void thread_pool::parallel_for(std::size_t n, std::size_t grain, const loop_body& body) {
  const loop_body* pointer = &body;
  parallel_for(n, grain, &call_through_pointer, &pointer, sizeof pointer);
}

void thread_pool::parallel_for(std::size_t n, std::size_t grain, parallel_context::chunk_function call,
                               const void* state, std::size_t state_bytes) {
  if (n == 0) return;
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t max_chunks = std::min<std::size_t>(workers(), (n + grain - 1) / grain);
  const std::size_t chunk_size = (n + max_chunks - 1) / max_chunks;
  const std::size_t chunks = (n + chunk_size - 1) / chunk_size;
  if (chunks == 1) {
    call(state, 0, n);
    return;
  }
  m_error = nullptr;  // no chunk runs between loops
  m_pending_chunks.store(chunks, std::memory_order_relaxed);
  const std::uint64_t generation = m_generation.load(std::memory_order_relaxed) + 1;
  for (std::size_t c = 0; c < chunks; ++c) {
    claim_word& claim = m_claims[c];
    claim.call = call;
    std::memcpy(claim.state, state, state_bytes);
    claim.begin = c * chunk_size;
    claim.end = std::min(n, (c + 1) * chunk_size);
    claim.value.store(unclaimed_in(generation), std::memory_order_release);
  }
  m_generation.store(generation, std::memory_order_release);
  m_generation.notify_all();  // a system call only when a helper sleeps

  // The caller's own chunk, then any chunk whose helper has not started it yet.
  for (std::size_t c = 0; c < chunks; ++c) (void)run_chunk_if_unclaimed(generation, c);

  // Poll for the helpers' chunks before blocking: the futex wake-up after the last one would cost more than
  // a small loop (docs/code-figures.md).

  (void)poll_until([this] { return m_pending_chunks.load(std::memory_order_acquire) == 0; });
  for (std::size_t left = m_pending_chunks.load(std::memory_order_acquire); left != 0;
       left = m_pending_chunks.load(std::memory_order_acquire)) {
    m_pending_chunks.wait(left, std::memory_order_acquire);
  }
  std::exception_ptr error;
  {
    const std::lock_guard lock(m_error_mutex);
    error = std::exchange(m_error, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

thread_pool::help_result thread_pool::help(int cpu) {
  if (cpu < 0) return help_result::nothing_to_do;
  auto result = help_result::nothing_to_do;
  for (std::size_t c = 1; c < m_thread_cpu.size(); ++c) {
    if (m_thread_cpu[c] != cpu) continue;
    // Only the claim word: an unclaimed or running chunk belongs to the current loop, since a loop ends only
    // when each of its chunks is finished; the word holds that loop's generation (word / 4).
    std::uint64_t word = m_claims[c].value.load(std::memory_order_relaxed);
    if (word == unclaimed_in(word / 4)) {
      if (run_chunk_if_unclaimed(word / 4, c)) return help_result::ran_a_chunk;
      word = m_claims[c].value.load(std::memory_order_relaxed);
    }
    if (word == running_in(word / 4)) result = help_result::a_chunk_runs_here;
  }
  return result;
}

void thread_pool::worker_loop(unsigned index) {
  bind_current_thread(m_thread_cpu[index]);  // placement.hpp
  std::uint64_t seen = 0;
  while (true) {
    const auto new_loop = [&] { return m_generation.load(std::memory_order_acquire) != seen; };
    if (!poll_until(new_loop)) m_generation.wait(seen, std::memory_order_acquire);
    seen = m_generation.load(std::memory_order_acquire);
    if (m_stopping.load(std::memory_order_relaxed)) return;
    (void)run_chunk_if_unclaimed(seen, index);
  }
}

}  // namespace kbench::cpu
