package archive

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/thrift/lib/go/thrift"
)

// builtGroup is a row group as builderFooter takes it: its chunks'
// metas (by leaf) and rows.
type builtGroup struct {
	metas []chunkMeta
	rows  int
}

// builderFooter returns the footer (FileMetaData, its length, the magic
// bytes) arrow-go's metadata builders make of groups, as the archive's
// file writer described them before footer.go: the calls chunk.finish
// and fileWriter.closeGroup made, the builder's encoding_stats sorted in
// the order of the pages (appendColumnChunk's note).
func builderFooter(t *testing.T, tb *table, groups []builtGroup) []byte {
	t.Helper()
	_, kv, props, err := tb.meta()
	if err != nil {
		t.Fatal(err)
	}
	b := metadata.NewFileMetadataBuilder(tb.file.sc, props, kv)
	for g, grp := range groups {
		rg := b.AppendRowGroup()
		for i := range grp.metas {
			m := &grp.metas[i]
			cb := rg.NextColumnChunk()
			hasDict := m.dictOff > 0
			info := metadata.ChunkMetaInfo{NumValues: m.values, IndexPageOffset: -1, DataPageOffset: m.dataOff,
				CompressedSize: m.compressed, UncompressedSize: m.uncompressed}
			stats := metadata.EncodingStats{DataEncodingStats: map[parquet.Encoding]int32{}}
			if hasDict {
				info.DictPageOffset = m.dictOff
				stats.DictEncodingStats = map[parquet.Encoding]int32{props.DictionaryPageEncoding(): 1}
			}
			if m.dictPages > 0 {
				stats.DataEncodingStats[props.DictionaryIndexEncoding()] = m.dictPages
			}
			if m.plainPages > 0 {
				stats.DataEncodingStats[parquet.Encodings.Plain] = m.plainPages
			}
			if err := cb.Finish(info, hasDict, m.fallback, stats); err != nil {
				t.Fatal(err)
			}
			es := cb.Contents().MetaData.EncodingStats
			rank := func(k int) int { // dictionary page, pages of indices, PLAIN pages
				if es[k].PageType != 0 {
					return 0
				}
				if es[k].Encoding == 0 { // PLAIN
					return 2
				}
				return 1
			}
			sort.SliceStable(es, func(i, j int) bool { return rank(i) < rank(j) })
			if m.stats {
				var st metadata.EncodedStatistics
				if m.hasMinMax {
					st.SetMin([]byte(m.min)).SetMax([]byte(m.max))
				}
				st.SetNullCount(m.nulls)
				st.ApplyStatSizeLimits(int(props.MaxStatsSizeFor(tb.file.sc.Column(i).Path())))
				cb.SetStats(st)
			}
		}
		rg.SetNumRows(grp.rows)
		if err := rg.Finish(0, int16(g)); err != nil {
			t.Fatal(err)
		}
	}
	md, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := md.WriteTo(&buf, nil); err != nil {
		t.Fatal(err)
	}
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(buf.Len())))
	buf.Write(parquetMagic)
	return buf.Bytes()
}

// writeBothWays writes rows as fileWriter.writeGroups does (or, when
// stream, as one group as writeStream does), with dictionaries limited
// to dictLimit bytes when it is not 0, and returns the file and the
// footer builderFooter makes of the same chunks, and those chunks.
func writeBothWays(t *testing.T, tb *table, rows reflect.Value, stream bool, dictLimit int) (file, want []byte, groups []builtGroup) {
	t.Helper()
	var buf bytes.Buffer
	fw, err := tb.newFileWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if dictLimit > 0 {
		for _, c := range fw.chunks {
			c.dictLimit = dictLimit
		}
	}
	var ranges [][2]int
	switch {
	case stream:
		ranges = [][2]int{{0, rows.Len()}}
	case rows.Len() > 0:
		ranges = tb.groups(rows)
	}
	for _, g := range ranges {
		if err := fw.writeSpans([]span{fw.spanOf(rows, g[0], g[1])}); err != nil {
			t.Fatal(err)
		}
		if err := fw.finishChunks(); err != nil {
			t.Fatal(err)
		}
		groups = append(groups, builtGroup{slices.Clone(fw.metas), fw.rows})
		fw.appendGroup()
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), builderFooter(t, tb, groups), groups
}

// TestFooterAsBuilder checks the footers footer.go writes byte for byte
// against those arrow-go's metadata builders make of the same chunks:
// every table, files of no rows, one group and many (groups of few
// rows), whole and streamed, small pages, dictionaries that fall back
// to PLAIN (with pages of indices before, and without), run ids longer
// than the statistics' limit. The files are those write and
// writeStream make, and arrow-go's reader reads the same rows as
// pqarrow's file holds.
func TestFooterAsBuilder(t *testing.T) {
	type tc struct {
		table             string
		n, groups, levels int
		stream            bool
		dictLimit         int
		longRuns          bool
	}
	const maxLevels = 1 << 17 // maxPageLevels
	var cases []tc
	for i, name := range Tables {
		for _, n := range []int{0, 1, 7, 700} {
			for _, groups := range []int{8192, 10} {
				for _, stream := range []bool{false, true} {
					cases = append(cases, tc{table: name, n: n, groups: groups, levels: []int{maxLevels, 5}[(n+i)%2], stream: stream})
				}
			}
		}
		cases = append(cases, tc{table: name, n: 700, groups: 8192, levels: 7, dictLimit: 200},
			tc{table: name, n: 700, groups: 100, levels: maxLevels, dictLimit: 200, stream: true},
			tc{table: name, n: 300, groups: 50, levels: 30, longRuns: true})
	}
	for k, c := range cases {
		t.Run(fmt.Sprintf("%s/%d rows, groups of %d, pages of %d levels, stream %v, limit %d, long ids %v", c.table, c.n, c.groups, c.levels, c.stream, c.dictLimit, c.longRuns), func(t *testing.T) {
			smallGroups(t, c.groups)
			pagesOf(t, c.levels)
			tb := tableByName(c.table)
			rows := randomRows(tb, rand.New(rand.NewPCG(uint64(k), 11)), c.n)
			if c.longRuns { // past the statistics' 4,096 bytes: a max left out, a group's min and max
				rows.Index(0).Field(tb.runID).SetString(strings.Repeat("\xff", 5000))
				for i := 200; i < 250; i++ {
					rows.Index(i).Field(tb.runID).SetString(strings.Repeat("\x01", 5000))
				}
			}
			file, want, groups := writeBothWays(t, tb, rows, c.stream, c.dictLimit)
			if c.longRuns && !slices.ContainsFunc(groups, func(g builtGroup) bool {
				return len(g.metas[tb.runID].max) > 4096
			}) {
				t.Fatal("no run_id bound past the limit")
			}
			if len(file) < len(want) || !bytes.Equal(file[len(file)-len(want):], want) {
				t.Fatalf("footer\n got % x\nwant % x", file[max(0, len(file)-len(want)):], want)
			}
			var ref bytes.Buffer
			switch {
			case c.dictLimit > 0 && c.levels < maxLevels:
				// pqarrow cuts pages of its own size, and its dictionaries
				// fall back elsewhere: arrow-go's reader reads the file.
				pf := openBytes(t, file)
				for g := range pf.NumRowGroups() {
					for col := range pf.MetaData().Schema.NumColumns() {
						leafValues(t, pf, g, col)
					}
				}
				return
			case c.dictLimit > 0:
				compareFiles(t, file, refFileWith(t, tb, rows, c.stream, parquet.WithDictionaryPageSizeLimit(int64(c.dictLimit))))
				return
			}
			if c.stream {
				ref = streamFile(t, tb, rows, max(1, c.n))
			} else if err := tb.write(&ref, rows); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(file, ref.Bytes()) {
				t.Fatalf("the file differs from the one %s writes", map[bool]string{false: "write", true: "writeStream"}[c.stream])
			}
			if c.n > 0 || c.stream { // pqarrow writes an empty group where write writes none
				compareFiles(t, file, refFile(t, tb, rows, c.stream))
			}
		})
	}
}

// TestFooterOfSeeds is TestFooterAsBuilder for the rows of the seed
// documents, in groups as a data file and a Writer's batch make them.
func TestFooterOfSeeds(t *testing.T) {
	runs, ms := seedRows(t)
	for _, groups := range []int{8192, 45} {
		smallGroups(t, groups)
		for _, rows := range []reflect.Value{reflect.ValueOf(runs), reflect.ValueOf(ms)} {
			file, want, _ := writeBothWays(t, tableOfRows(rows), rows, false, 0)
			if !bytes.HasSuffix(file, want) {
				t.Fatalf("%v, groups of %d: the footer differs from the builder's", rows.Type(), groups)
			}
		}
	}
}

// FuzzSkipValue checks skipValue against apache/thrift's compact
// protocol (TCompactProtocol.Skip): where a struct ends, and that it
// reads every struct thrift reads.
func FuzzSkipValue(f *testing.F) {
	for _, name := range Tables {
		if _, _, _, err := tableByName(name).meta(); err != nil {
			f.Fatal(err)
		}
		foot := tableByName(name).file.foot
		f.Add(append(slices.Clone(foot.head), foot.tail...))
	}
	f.Add([]byte{0x19, 0x1c, 0x15, 0x02, 0x00, 0x00})                   // a list of one struct
	f.Add([]byte{0x0b, 0x02, 0x00, 0x03, 0x85, 0x01, 0x02, 0x03, 0x00}) // a map of i32 to i16 (long field header)
	f.Add([]byte{0x1a, 0x21, 0x01, 0x17, 1, 2, 3, 4, 5, 6, 7, 8, 0x00}) // a set of booleans, a double
	f.Fuzz(func(t *testing.T, b []byte) {
		end, err := skipValue(b, 0, thriftStruct, 0)
		buf := thrift.NewTMemoryBufferLen(len(b))
		buf.Write(b)
		p := thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
		if terr := p.Skip(context.Background(), thrift.STRUCT); terr == nil {
			if err != nil {
				t.Fatalf("% x: %v; thrift reads it", b, err)
			}
			if want := len(b) - buf.Len(); end != want {
				t.Fatalf("% x: ends at %d, thrift at %d", b, end, want)
			}
		}
	})
}
