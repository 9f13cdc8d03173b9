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
