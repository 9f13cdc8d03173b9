// Package hugeheap asks the kernel to back the Go heap with transparent
// huge pages (madvise MADV_HUGEPAGE) where it leaves that to programs
// (Linux with /sys/kernel/mm/transparent_hugepage/enabled set to
// "madvise"): a program that fills a dense heap under a soft memory limit
// (ingest) then takes a page fault per 2 MB instead of per 4 KB.
// Elsewhere Advise does nothing.
package hugeheap
