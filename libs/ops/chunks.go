package ops

// InChunks asks for ids in calls of at most size ids each, one after another
// (a typed client's operation that takes a bounded list of ids and answers a
// map by id, such as customers.orders.getOrderFacts), and merges the maps:
// any number of ids, whatever one call takes. The first error ends it and is
// returned; an empty ids makes no call. size below 1 is taken as 1.
func InChunks[V any](ids []string, size int, call func(chunk []string) (map[string]V, error)) (map[string]V, error) {
	size = max(size, 1)
	out := make(map[string]V, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), size)
		part, err := call(ids[:n:n])
		if err != nil {
			return nil, err
		}
		for id, v := range part {
			out[id] = v
		}
		ids = ids[n:]
	}
	return out, nil
}
