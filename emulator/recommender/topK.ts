/**
 * The `k` best of `count` items, best first, where `compare(a, b) < 0` means
 * `a` ranks before `b`. A bounded heap whose root is the worst kept item:
 * O(count · log k) instead of sorting everything, which matters when a
 * domain has thousands of candidates and an experience wants six.
 */
export function selectTop(count: number, k: number, compare: (a: number, b: number) => number): number[] {
  const limit = Math.max(0, Math.min(k, count));
  const heap: number[] = [];
  if (limit === 0) return heap;
  // In the heap, "higher priority" means "worse", so the root is the first to evict.
  const worse = (a: number, b: number): boolean => compare(a, b) > 0;

  for (let item = 0; item < count; item++) {
    if (heap.length < limit) {
      heap.push(item);
      siftUp(heap, heap.length - 1, worse);
    } else if (compare(item, heap[0]) < 0) {
      heap[0] = item;
      siftDown(heap, 0, worse);
    }
  }
  return heap.sort(compare);
}

function siftUp(heap: number[], index: number, worse: (a: number, b: number) => boolean): void {
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!worse(heap[index], heap[parent])) return;
    [heap[index], heap[parent]] = [heap[parent], heap[index]];
    index = parent;
  }
}

function siftDown(heap: number[], index: number, worse: (a: number, b: number) => boolean): void {
  for (;;) {
    const left = 2 * index + 1;
    const right = left + 1;
    let worst = index;
    if (left < heap.length && worse(heap[left], heap[worst])) worst = left;
    if (right < heap.length && worse(heap[right], heap[worst])) worst = right;
    if (worst === index) return;
    [heap[index], heap[worst]] = [heap[worst], heap[index]];
    index = worst;
  }
}
