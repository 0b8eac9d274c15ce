package modules

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"marketplace/libs/events"
	"marketplace/libs/service"
)

// kafkaUsersFile holds the services' Kafka users as the cluster declares them.
const kafkaUsersFile = "kafka-users.yaml"

// renderKafkaUsers is k8s/kafka-users.yaml for ms: a Strimzi KafkaUser per
// module with simple authorization, its ACLs those of KafkaACLs, one rule per
// resource with its operations.
func renderKafkaUsers(ms []service.Module) string {
	var b strings.Builder
	b.WriteString(`# The services' Kafka users and what each may do, as Strimzi's User Operator
# declares them (KafkaUser, SCRAM-SHA-512, simple authorization). Generated
# from the module list (deploy/modules KafkaACLs, the same ACLs the embedded
# broker of make run and make run-distributed holds each service to):
#   UPDATE_K8S=1 go test ./deploy/modules -run TestKubernetesKafkaUsers
# Each service writes the topics it publishes, reads the topics it consumes
# in its own consumer groups (<service>, <service>.<what>), writes and reads
# its groups' own dead-letter topics (dlq.<service>, dlq.<service>.<what>),
# and may create those topics; nothing else. The gateway has none: it does
# not follow Kafka in k8s.
#
# Apply them in the Kafka cluster's namespace (not with kustomize, which puts
# everything in the namespace marketplace):
#   kubectl apply -f k8s/kafka-users.yaml
# The User Operator makes a Secret per user, named after it, in that
# namespace; copy its key password into the Secret <service>-kafka of the
# namespace marketplace (k8s/README.md).
`)
	acls := KafkaACLs(ms)
	for _, m := range ms {
		fmt.Fprintf(&b, `---
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaUser
metadata:
  name: %s
  namespace: kafka
  labels:
    strimzi.io/cluster: marketplace
spec:
  authentication:
    type: scram-sha-512
  authorization:
    type: simple
`, m.Name)
		rules := strimziRules(acls[m.Name])
		if len(rules) == 0 {
			b.WriteString("    acls: [] # it publishes and consumes nothing: it connects, and that is all\n")
			continue
		}
		b.WriteString("    acls:\n")
		for _, r := range rules {
			fmt.Fprintf(&b, "      - resource: {type: %s, name: %s, patternType: %s}\n        operations: [%s]\n",
				r.Resource.Type, r.Resource.Name, r.Resource.PatternType, strings.Join(r.Operations, ", "))
		}
	}
	return b.String()
}

// strimziRule is one entry of a KafkaUser's spec.authorization.acls.
type strimziRule struct {
	Resource struct {
		Type        string `yaml:"type"`
		Name        string `yaml:"name"`
		PatternType string `yaml:"patternType"`
	} `yaml:"resource"`
	Operations []string `yaml:"operations"`
	Type       string   `yaml:"type"` // allow (the default) or deny
	Host       string   `yaml:"host"`
}

// strimziRules groups acls by resource, in KafkaACLs' order.
func strimziRules(acls []events.ACL) []strimziRule {
	var out []strimziRule
	for _, a := range acls {
		pattern := "literal"
		if a.Prefix {
			pattern = "prefix"
		}
		i := slices.IndexFunc(out, func(r strimziRule) bool {
			return r.Resource.Type == a.Resource && r.Resource.Name == a.Name && r.Resource.PatternType == pattern
		})
		if i < 0 {
			var r strimziRule
			r.Resource.Type, r.Resource.Name, r.Resource.PatternType = a.Resource, a.Name, pattern
			out = append(out, r)
			i = len(out) - 1
		}
		out[i].Operations = append(out[i].Operations, a.Operation)
	}
	for i := range out {
		slices.Sort(out[i].Operations)
	}
	return out
}

// kafkaUserDoc is what the test reads of a KafkaUser.
type kafkaUserDoc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace"`
		Labels    map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		Authentication struct {
			Type string `yaml:"type"`
		} `yaml:"authentication"`
		Authorization struct {
			Type string        `yaml:"type"`
			ACLs []strimziRule `yaml:"acls"`
		} `yaml:"authorization"`
	} `yaml:"spec"`
}

// k8s/kafka-users.yaml is generated from the module list, and what it
// declares, read back as Strimzi reads it, is each service's KafkaACLs: a
// KafkaUser per service named after it (its KAFKA_SASL_USERNAME) in the
// Kafka cluster's namespace, SCRAM-SHA-512, simple authorization, allow
// rules only; none for the gateway, which does not follow Kafka in k8s; and
// kustomize does not apply it to the namespace marketplace.
func TestKubernetesKafkaUsers(t *testing.T) {
	path := filepath.Join(root, "k8s", kafkaUsersFile)
	want := renderKafkaUsers(All)
	if os.Getenv("UPDATE_K8S") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("k8s/%s is not the one the module list makes; regenerate it with UPDATE_K8S=1 go test ./deploy/modules -run %s", kafkaUsersFile, t.Name())
	}

	dec := yaml.NewDecoder(strings.NewReader(string(got)))
	users := map[string][]events.ACL{}
	for {
		var d kafkaUserDoc
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", kafkaUsersFile, err)
		}
		if d.APIVersion != "kafka.strimzi.io/v1beta2" || d.Kind != "KafkaUser" || d.Metadata.Namespace != "kafka" ||
			d.Metadata.Labels["strimzi.io/cluster"] != "marketplace" || d.Spec.Authentication.Type != "scram-sha-512" || d.Spec.Authorization.Type != "simple" {
			t.Errorf("%s: %+v, want a KafkaUser of the cluster marketplace in namespace kafka with scram-sha-512 and simple authorization", kafkaUsersFile, d)
		}
		if _, dup := users[d.Metadata.Name]; dup {
			t.Errorf("%s: user %s twice", kafkaUsersFile, d.Metadata.Name)
		}
		acls := []events.ACL{}
		for _, r := range d.Spec.Authorization.ACLs {
			if r.Type != "" && r.Type != "allow" || r.Host != "" && r.Host != "*" {
				t.Errorf("%s: %s: rule %+v, want allow rules from any host", kafkaUsersFile, d.Metadata.Name, r)
			}
			for _, op := range r.Operations {
				acls = append(acls, events.ACL{Resource: r.Resource.Type, Name: r.Resource.Name, Prefix: r.Resource.PatternType == "prefix", Operation: op})
			}
		}
		users[d.Metadata.Name] = events.SortACLs(acls)
	}
	acls := KafkaACLs(All)
	for _, m := range All {
		got, ok := users[m.Name]
		if !ok {
			t.Errorf("%s: no KafkaUser %s", kafkaUsersFile, m.Name)
			continue
		}
		if !slices.Equal(got, acls[m.Name]) {
			t.Errorf("%s: %s may %v, want %v", kafkaUsersFile, m.Name, got, acls[m.Name])
		}
		delete(users, m.Name)
	}
	for name := range users {
		t.Errorf("%s: KafkaUser %s is no service of the module list", kafkaUsersFile, name)
	}
	kustomization, err := os.ReadFile(filepath.Join(root, "k8s", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(kustomization), kafkaUsersFile) {
		t.Errorf("kustomization.yaml applies %s, whose users belong in the Kafka cluster's namespace", kafkaUsersFile)
	}
}
