// Package containers runs the black-box suite (deploy/e2e) against real MongoDB
// (a replica set) and real Kafka started by testcontainers. It skips cleanly where
// no Docker engine is reachable, as on the development machines of this project.
package containers

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/kafka"
	"github.com/testcontainers/testcontainers-go/modules/mongodb"
)

func TestBlackBoxSuiteOnRealMongoDBAndKafka(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	mongoC, err := mongodb.Run(ctx, "mongo:7", mongodb.WithReplicaSet("rs0"))
	testcontainers.CleanupContainer(t, mongoC)
	if err != nil {
		t.Fatal(err)
	}
	uri, err := mongoC.ConnectionString(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kafkaC, err := kafka.Run(ctx, "confluentinc/confluent-local:7.5.0", kafka.WithClusterID("marketplace-test"))
	testcontainers.CleanupContainer(t, kafkaC)
	if err != nil {
		t.Fatal(err)
	}
	brokers, err := kafkaC.Brokers(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The same tests, in their own process, pointed at the containers; each test's
	// system uses its own database names (DB_NAME_PREFIX), so they do not collide.
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "marketplace/deploy/e2e")
	cmd.Env = append(os.Environ(),
		"MARKETPLACE_TEST_MONGODB_URI="+uri,
		"MARKETPLACE_TEST_KAFKA_BROKERS="+strings.Join(brokers, ","),
	)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("black-box suite on real engines: %v", err)
	}
}
