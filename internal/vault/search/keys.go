package search

import "hash/maphash"

// keyLists maps a string key (a link key, a note key) to the notes known
// by it, in the order they were added, dead ones included (their readers
// skip them). A map from a key's string to a slice of ids was two objects
// per key for the collector to mark on every cycle (45k on a 10k-note
// vault, half of the index's objects); here the keys live in the index's
// text, the lists in one array, and the map holds neither.
type keyLists struct {
	seed  maphash.Seed
	heads map[uint64]keySpan // by the hash of the key
	ents  []keyEntry
	// collide holds the keys whose hash another key took first: a 64-bit
	// hash makes it almost always empty, but it keeps lookups exact.
	collide map[string][]uint32
}

// keySpan is a key and where its list starts and ends in ents.
type keySpan struct {
	key         textRef
	first, last uint32
}

// keyEntry is one note of a key's list; next is the index of the next
// entry of the list plus one, 0 at its end.
type keyEntry struct {
	id, next uint32
}

func newKeyLists(keys, ents int) keyLists {
	return keyLists{seed: maphash.MakeSeed(), heads: make(map[uint64]keySpan, keys), ents: make([]keyEntry, 0, ents)}
}

// addKey appends id to the list of key.
func (x *Index) addKey(l *keyLists, key string, id uint32) {
	h := maphash.String(l.seed, key)
	sp, ok := l.heads[h]
	if ok && x.text.get(sp.key) != key {
		if l.collide == nil {
			l.collide = map[string][]uint32{}
		}
		l.collide[key] = append(l.collide[key], id)
		return
	}
	at := uint32(len(l.ents)) // #nosec G115 -- one entry per key of a note in memory; 2^32 would need hundreds of GB first
	l.ents = append(l.ents, keyEntry{id: id})
	if !ok {
		sp = keySpan{key: x.putShared(key), first: at}
	} else {
		l.ents[sp.last].next = at + 1
	}
	sp.last = at
	l.heads[h] = sp
}

// keyIDs calls fn for each id in the list of key, in the order added.
func (x *Index) keyIDs(l *keyLists, key string, fn func(id uint32)) {
	if sp, ok := l.heads[maphash.String(l.seed, key)]; ok && x.text.get(sp.key) == key {
		for i := sp.first + 1; i != 0; i = l.ents[i-1].next {
			fn(l.ents[i-1].id)
		}
		return
	}
	for _, id := range l.collide[key] {
		fn(id)
	}
}

// liveKeys calls fn with each key of l whose list holds a live note.
func (x *Index) liveKeys(l *keyLists, fn func(key string)) {
	for _, sp := range l.heads {
		for i := sp.first + 1; i != 0; i = l.ents[i-1].next {
			if x.docs[l.ents[i-1].id].live {
				fn(x.text.get(sp.key))
				break
			}
		}
	}
	for key, ids := range l.collide {
		for _, id := range ids {
			if x.docs[id].live {
				fn(key)
				break
			}
		}
	}
}

// compactKeys is l for nx, with the ids renumbered by remap and the dead
// ones dropped, each list in its order.
func (x *Index) compactKeys(nx *Index, l *keyLists, remap []uint32) keyLists {
	out := newKeyLists(len(l.heads), len(l.ents))
	for _, sp := range l.heads {
		key := x.text.get(sp.key)
		for i := sp.first + 1; i != 0; i = l.ents[i-1].next {
			if n := remap[l.ents[i-1].id]; n != ^uint32(0) {
				nx.addKey(&out, key, n)
			}
		}
	}
	for key, ids := range l.collide {
		for _, id := range ids {
			if n := remap[id]; n != ^uint32(0) {
				nx.addKey(&out, key, n)
			}
		}
	}
	return out
}
