package parse

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestDumpTmp(t *testing.T) {
	b, _ := os.ReadFile(os.Getenv("F"))
	ms, err := ParseAllBytes(b, "x", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range ms {
		j, _ := json.MarshalIndent(m.Measurements, "", " ")
		r, _ := json.MarshalIndent(m.Run, "", " ")
		fmt.Println(string(r), string(j))
	}
}
