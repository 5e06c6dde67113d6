package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"sync"
)

type Store struct {
	mu    sync.RWMutex
	items map[string]int
}

func (s *Store) Get(key string) (int, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.items[key]
	return v, ok
}

func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	if v, ok := s.Get(key); ok {
		_ = json.NewEncoder(w).Encode(map[string]int{key: v})
		return
	}
	http.Error(w, fmt.Sprintf("no such key %q", key), http.StatusNotFound)
}

func main() {
	s := &Store{items: map[string]int{"a": 1}}
	log.Fatal(http.ListenAndServe(":8080", s))
}
