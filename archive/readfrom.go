package archive

import (
	"github.com/apache/arrow-go/v18/parquet"
)

// ReadFrom is ReadFile for a file that is not on the local disk (an
// object store's reader): every row of the Parquet file r of T's table,
// name naming it in errors.
func ReadFrom[T Row](r parquet.ReaderAtSeeker, name string) ([]T, error) {
	var out sink[T]
	if err := tableOf[T]().read(r, name, nil, nil, &out); err != nil {
		return nil, err
	}
	return out.rows(), nil
}

// ReadRunsFrom is ReadFrom for the rows of the runs ids (every run when
// ids is nil), in the columns cols (every column when nil; run_id is
// always read): row groups whose run_id statistics rule out every id are
// not read, which on an object store saves their requests.
func ReadRunsFrom[T Row](r parquet.ReaderAtSeeker, name string, ids, cols []string) ([]T, error) {
	var keep *runSet
	if ids != nil {
		keep = newRunSet(ids)
	}
	var out sink[T]
	if err := tableOf[T]().read(r, name, keep, cols, &out); err != nil {
		return nil, err
	}
	return out.rows(), nil
}
