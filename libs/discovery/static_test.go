package discovery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestStaticResolve(t *testing.T) {
	seed := map[string]string{"catalog": "http://127.0.0.1:1000/"}
	s := NewStatic(seed)
	seed["catalog"] = "http://mutated" // NewStatic must copy

	got, err := s.Resolve(context.Background(), "catalog")
	if err != nil || got != "http://127.0.0.1:1000" {
		t.Fatalf("Resolve(catalog) = %q, %v; want trailing slash trimmed", got, err)
	}

	_, err = s.Resolve(context.Background(), "platformconfig")
	if !errors.Is(err, ErrNoInstance) {
		t.Fatalf("unknown service: err = %v, want ErrNoInstance", err)
	}
}

func TestStaticSetAfterStart(t *testing.T) {
	s := NewStatic(nil)
	s.Set("platformconfig", "http://127.0.0.1:2000")
	if got, err := s.Resolve(context.Background(), "platformconfig"); err != nil || got != "http://127.0.0.1:2000" {
		t.Fatalf("after Set: %q, %v", got, err)
	}
	s.Set("platformconfig", "http://127.0.0.1:2001//")
	if got, _ := s.Resolve(context.Background(), "platformconfig"); got != "http://127.0.0.1:2001" {
		t.Fatalf("after overwrite: %q", got)
	}
	s.Set("platformconfig", "")
	if _, err := s.Resolve(context.Background(), "platformconfig"); !errors.Is(err, ErrNoInstance) {
		t.Fatalf("after removal: err = %v, want ErrNoInstance", err)
	}
}

// Run with -race: Set and Resolve from many goroutines.
func TestStaticConcurrent(t *testing.T) {
	s := NewStatic(nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range 100 {
				s.Set(fmt.Sprintf("svc%d", i), fmt.Sprintf("http://127.0.0.1:%d", 1000+j))
			}
		}()
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = s.Resolve(context.Background(), fmt.Sprintf("svc%d", i))
			}
		}()
	}
	wg.Wait()
	for i := range 8 {
		if got, err := s.Resolve(context.Background(), fmt.Sprintf("svc%d", i)); err != nil || got != "http://127.0.0.1:1099" {
			t.Fatalf("svc%d = %q, %v", i, got, err)
		}
	}
}
