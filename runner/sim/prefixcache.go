package sim

import "container/list"

// prefixCache is an LRU set of prompt-prefix block hashes. Only the engine
// goroutine uses it.
type prefixCache struct {
	capBlocks int
	order     *list.List // front = most recently used; values are uint64
	blocks    map[uint64]*list.Element
}

func newPrefixCache(capBlocks int) *prefixCache {
	return &prefixCache{capBlocks: capBlocks, order: list.New(), blocks: make(map[uint64]*list.Element)}
}

// lookup returns how many leading blocks of hashes are cached, marking
// them used.
func (c *prefixCache) lookup(hashes []uint64) int {
	if c.capBlocks <= 0 {
		return 0
	}
	n := 0
	for _, h := range hashes {
		if _, ok := c.blocks[h]; !ok {
			break
		}
		n++
	}
	// Touch from the last block back so the first block ends up most
	// recent: eviction then trims prefixes from their tails.
	for i := n - 1; i >= 0; i-- {
		c.order.MoveToFront(c.blocks[hashes[i]])
	}
	return n
}

// insert records every block of hashes, evicting the least recently used
// beyond capacity.
func (c *prefixCache) insert(hashes []uint64) {
	if c.capBlocks <= 0 {
		return
	}
	for i := len(hashes) - 1; i >= 0; i-- {
		h := hashes[i]
		if e, ok := c.blocks[h]; ok {
			c.order.MoveToFront(e)
			continue
		}
		c.blocks[h] = c.order.PushFront(h)
	}
	for c.order.Len() > c.capBlocks {
		e := c.order.Back()
		c.order.Remove(e)
		delete(c.blocks, e.Value.(uint64))
	}
}
