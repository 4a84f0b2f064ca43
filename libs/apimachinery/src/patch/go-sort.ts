// Go's sort.SliceStable algorithm: insertion sort on blocks of 20, then SymMerge (Kim & Kutzner) of
// doubling runs, using only `less` and swaps.
//
// Why not Array.prototype.sort: strategicpatch sorts with a `less` that answers true whenever either item
// is missing from the reference order, which is not a consistent ordering. The outcome then depends on the
// exact sequence of comparisons, so the only way to order such lists as kube-apiserver does is to run the
// same algorithm. With a consistent `less` this is just a stable sort.

export function goStableSort<T>(data: T[], less: (a: T, b: T) => boolean): void {
  const lessAt = (i: number, j: number): boolean => less(data[i] as T, data[j] as T);
  const swap = (i: number, j: number): void => {
    const tmp = data[i] as T;
    data[i] = data[j] as T;
    data[j] = tmp;
  };

  const insertionSort = (a: number, b: number): void => {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1);
    }
  };

  const swapRange = (a: number, b: number, n: number): void => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };

  // Rotates data[a:m] and data[m:b] so that the second block comes first, by block swaps.
  const rotate = (a: number, m: number, b: number): void => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };

  // Merges the sorted runs data[a:m] and data[m:b] in place.
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      // A single left element moves right past everything less than it.
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessAt(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      // A single right element moves left before everything not less-or-equal to it.
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessAt(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessAt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };

  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}
