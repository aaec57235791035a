package httpx

import (
	"fmt"
	"testing"
	"time"
)

func TestOnceSet(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewOnceSet(3)
	if fresh, room := s.Use("a", now.Add(time.Minute), now); !fresh || !room {
		t.Fatalf("first use: fresh %v room %v", fresh, room)
	}
	if fresh, room := s.Use("a", now.Add(time.Minute), now.Add(30*time.Second)); fresh || !room {
		t.Fatalf("replay within its life: fresh %v room %v", fresh, room)
	}
	// Once expired, the key may be used again.
	if fresh, _ := s.Use("a", now.Add(3*time.Minute), now.Add(time.Minute)); !fresh {
		t.Fatal("use after expiry refused")
	}
	// Full of live keys, it refuses a new one and forgets none.
	for i := range 2 {
		if fresh, room := s.Use(fmt.Sprint("k", i), now.Add(time.Hour), now.Add(time.Minute)); !fresh || !room {
			t.Fatalf("k%d refused", i)
		}
	}
	if fresh, room := s.Use("new", now.Add(time.Hour), now.Add(time.Minute)); fresh || room {
		t.Fatalf("full set: fresh %v room %v", fresh, room)
	}
	if fresh, _ := s.Use("k0", now.Add(time.Hour), now.Add(2*time.Minute)); fresh {
		t.Fatal("a live key was forgotten to make room")
	}
	// A full set drops its expired keys to make room.
	if fresh, room := s.Use("late", now.Add(2*time.Hour), now.Add(90*time.Minute)); !fresh || !room {
		t.Fatalf("expired keys not dropped: fresh %v room %v", fresh, room)
	}
	if n := s.Len(); n != 1 {
		t.Errorf("%d keys after the expired ones went, want 1", n)
	}
	s.Prune(now.Add(3 * time.Hour))
	if n := s.Len(); n != 0 {
		t.Errorf("%d keys after Prune, want 0", n)
	}
}
