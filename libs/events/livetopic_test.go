package events

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/liveset"
)

// A live topic (a service's committed writes for live queries) keeps its
// events LiveRetention; the other topics are as before. The broker makes no
// dead-letter topic: those are consumer groups' (DeadLetterTopic), made by
// their consumers.
func TestLiveTopicsHaveAShortRetentionAndNoDeadLetterTopic(t *testing.T) {
	live := liveset.TopicOf("reviews")
	b, err := StartBroker(t.TempDir(), "orders", live)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	brokers := b.Brokers()
	tr := brokers.Transport("test")
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: brokers.Addr(), Transport: tr, Timeout: 10 * time.Second}
	md, err := client.Metadata(ctx, &kafka.MetadataRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tp := range md.Topics {
		names = append(names, tp.Name)
	}
	for _, want := range []string{"orders", live} {
		if !slices.Contains(names, want) {
			t.Errorf("topic %s missing: %v", want, names)
		}
	}
	for _, n := range names {
		if strings.HasSuffix(n, ".dlq") || strings.HasPrefix(n, DeadLetterPrefix) {
			t.Errorf("the broker made a dead-letter topic: %v", names)
		}
	}
	cfg, err := client.DescribeConfigs(ctx, &kafka.DescribeConfigsRequest{Resources: []kafka.DescribeConfigRequestResource{
		{ResourceType: kafka.ResourceTypeTopic, ResourceName: live, ConfigNames: []string{"retention.ms"}},
		{ResourceType: kafka.ResourceTypeTopic, ResourceName: "orders", ConfigNames: []string{"retention.ms"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range cfg.Resources {
		for _, e := range r.ConfigEntries {
			if e.ConfigName == "retention.ms" {
				got[r.ResourceName] = e.ConfigValue
			}
		}
	}
	if want := strconv.FormatInt(LiveRetention.Milliseconds(), 10); got[live] != want || got["orders"] == want {
		t.Fatalf("retention.ms %v; want %s for %s only", got, want, live)
	}
}
