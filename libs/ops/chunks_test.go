package ops

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestInChunks(t *testing.T) {
	ids := make([]string, 450)
	for i := range ids {
		ids[i] = fmt.Sprintf("id%03d", i)
	}
	var sizes []int
	got, err := InChunks(ids, 200, func(chunk []string) (map[string]int, error) {
		sizes = append(sizes, len(chunk))
		out := map[string]int{}
		for _, id := range chunk {
			if id != "id007" { // an id the service does not know: absent
				out[id] = len(id)
			}
		}
		return out, nil
	})
	if err != nil || !slices.Equal(sizes, []int{200, 200, 50}) || len(got) != 449 || got["id449"] != 5 {
		t.Fatalf("calls of %v, %d answers, err %v", sizes, len(got), err)
	}
	if _, ok := got["id007"]; ok {
		t.Fatal("an absent id answered")
	}
	calls := 0
	got, err = InChunks(nil, 200, func([]string) (map[string]int, error) { calls++; return nil, nil })
	if err != nil || calls != 0 || got == nil || len(got) != 0 {
		t.Fatalf("no ids: %d calls, %v, %v", calls, got, err)
	}
	boom := errors.New("boom")
	calls = 0
	_, err = InChunks(ids, 200, func([]string) (map[string]int, error) {
		calls++
		if calls == 2 {
			return nil, boom
		}
		return map[string]int{}, nil
	})
	if !errors.Is(err, boom) || calls != 2 {
		t.Fatalf("error after %d calls: %v", calls, err)
	}
}
