//go:build linux

package hugeheap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestAdviseHugeHeap checks that the advised range is the heap's and
// that the kernel recorded the advice on its mapping ("hg" in VmFlags).
func TestAdviseHugeHeap(t *testing.T) {
	beg, end, err := Advise()
	if errors.Is(err, syscall.EINVAL) {
		if _, serr := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); serr != nil {
			t.Skip("this kernel has no transparent huge pages:", err)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	// The size is the limit's when the first call came (run's, if a test
	// ran ingest over many files before).
	if want := uintptr(hugeHeapSize); end-beg < want-2*hugePage || end-beg > want || beg%hugePage != 0 || end%hugePage != 0 {
		t.Fatalf("advised [%#x, %#x): want %d MB aligned to %d", beg, end, want>>20, hugePage)
	}
	if b2, e2, _ := Advise(); b2 != beg || e2 != end {
		t.Errorf("second call [%#x, %#x), want the first's [%#x, %#x)", b2, e2, beg, end)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	flags, err := vmFlags(smaps, beg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("mapping at %#x has VmFlags %q, want hg (MADV_HUGEPAGE)", beg, flags)
	}
}

// vmFlags returns the VmFlags line of the mapping that holds addr in a
// /proc/PID/smaps text.
func vmFlags(smaps []byte, addr uintptr) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			in = lo <= uint64(addr) && uint64(addr) < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}

// mappingRange reads "lo-hi perms …", the first line of a mapping.
func mappingRange(line string) (lo, hi uint64, ok bool) {
	r, _, found := strings.Cut(line, " ")
	a, b, dash := strings.Cut(r, "-")
	if !found || !dash {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	return lo, hi, err1 == nil && err2 == nil
}

func TestVMFlags(t *testing.T) {
	smaps := []byte(`c000000000-c004000000 rw-p 00000000 00:00 0
Size:              65536 kB
VmFlags: rd wr mr mw me ac hg
c004000000-c008000000 ---p 00000000 00:00 0
VmFlags: mr mw me
`)
	for _, tc := range []struct {
		addr uintptr
		want string
	}{
		{0xc000000000, "rd wr mr mw me ac hg"},
		{0xc003ffffff, "rd wr mr mw me ac hg"},
		{0xc004000000, "mr mw me"},
		{0xc008000000, ""},
	} {
		got, err := vmFlags(smaps, tc.addr)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("vmFlags(%#x) = %q, %v; want %q", tc.addr, got, err, tc.want)
		}
	}
}

// TestHugeHeapBytes checks that the advice follows the soft memory
// limit: three quarters of it, at most maxHugeHeap.
func TestHugeHeapBytes(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, tc := range []struct {
		limit int64
		want  int
	}{
		{128 << 20, 96 << 20},
		{32 << 20, 24 << 20},
		{math.MaxInt64, maxHugeHeap},
	} {
		debug.SetMemoryLimit(tc.limit)
		if got := hugeHeapBytes(); got != tc.want {
			t.Errorf("limit %d: hugeHeapBytes() = %d, want %d", tc.limit, got, tc.want)
		}
	}
}
