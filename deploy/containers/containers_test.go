// Package containers runs the black-box suite (deploy/e2e) against real MongoDB
// (a replica set) and real Kafka started by testcontainers. It skips cleanly where
// no Docker engine is reachable, as on the development machines of this project,
// unless MARKETPLACE_REQUIRE_DOCKER=1 (the hosting CI's workflow,
// .github/workflows/real-engines.yml): there a missing engine is a failure, not
// a green skip.
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

// RequireDockerEnv, set to 1, turns the skip without a Docker engine into a
// failure.
const RequireDockerEnv = "MARKETPLACE_REQUIRE_DOCKER"

// suiteTimeout bounds the black-box suite's own go test (its default, 10
// minutes, is short for the whole suite on containers).
const suiteTimeout = 30 * time.Minute

func TestBlackBoxSuiteOnRealMongoDBAndKafka(t *testing.T) {
	if os.Getenv(RequireDockerEnv) == "1" {
		requireDocker(t)
	}
	testcontainers.SkipIfProviderIsNotHealthy(t)
	ctx, cancel := context.WithTimeout(context.Background(), suiteTimeout+10*time.Minute)
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
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-timeout", suiteTimeout.String(), "marketplace/deploy/e2e")
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

// requireDocker fails the test unless a Docker engine answers, where
// SkipIfProviderIsNotHealthy would skip it.
func requireDocker(t *testing.T) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s=1 and no Docker engine: %v", RequireDockerEnv, r)
		}
	}()
	provider, err := testcontainers.ProviderDocker.GetProvider()
	if err == nil {
		err = provider.Health(context.Background())
	}
	if err != nil {
		t.Fatalf("%s=1 and no Docker engine answers: %v", RequireDockerEnv, err)
	}
}
