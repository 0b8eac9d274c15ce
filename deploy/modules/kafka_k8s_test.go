package modules

import (
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"marketplace/libs/events"
)

// kafkaDoc is what the Kafka test reads of a Kubernetes object.
type kafkaDoc struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		Template struct {
			Spec struct {
				Containers []struct {
					EnvFrom []struct {
						ConfigMapRef *struct{ Name string } `yaml:"configMapRef"`
					} `yaml:"envFrom"`
					Env []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
						ReadOnly  bool   `yaml:"readOnly"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name      string `yaml:"name"`
					Projected *struct {
						Sources []struct {
							Secret *struct{ Name string } `yaml:"secret"`
						} `yaml:"sources"`
					} `yaml:"projected"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readKafkaDocs(t *testing.T, file string) []kafkaDoc {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "k8s", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []kafkaDoc
	dec := yaml.NewDecoder(f)
	for {
		var d kafkaDoc
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, d)
	}
}

func findDoc(docs []kafkaDoc, kind, name string) *kafkaDoc {
	for i := range docs {
		if docs[i].Kind == kind && docs[i].Metadata.Name == name {
			return &docs[i]
		}
	}
	return nil
}

// k8s/ connects every service to Kafka over TLS with SASL/SCRAM as its own
// user: the ConfigMap names the CA and password files, each service's
// Deployment sets its user name (the service's) and mounts the volume that
// holds those files, from the cluster's CA Secret and its own password Secret
// (secret.example.yaml, with those keys); the gateway gets none of it.
func TestKubernetesKafkaCredentials(t *testing.T) {
	const mount = "/etc/marketplace/kafka"
	cm := findDoc(readKafkaDocs(t, "configmap.yaml"), "ConfigMap", "marketplace-services")
	if cm == nil {
		t.Fatal("configmap.yaml has no ConfigMap marketplace-services")
	}
	settings := events.KafkaSettings{KafkaBrokers: strings.Split(cm.Data["KAFKA_BROKERS"], ","), KafkaSASLMechanism: cm.Data["KAFKA_SASL_MECHANISM"],
		KafkaSASLUsername: "x", KafkaSASLPassword: "x"}
	if u, err := settings.KafkaUser(); err != nil || u.Mechanism != events.SASLScramSHA512 {
		t.Errorf("KAFKA_SASL_MECHANISM=%q: %v, want SCRAM-SHA-512", cm.Data["KAFKA_SASL_MECHANISM"], err)
	}
	caFile, pwFile := cm.Data["KAFKA_TLS_CA_FILE"], cm.Data["KAFKA_SASL_PASSWORD_FILE"]
	if path.Dir(caFile) != mount || path.Dir(pwFile) != mount {
		t.Fatalf("KAFKA_TLS_CA_FILE=%q and KAFKA_SASL_PASSWORD_FILE=%q must be files of %s", caFile, pwFile, mount)
	}
	secrets := readKafkaDocs(t, "secret.example.yaml")
	if ca := findDoc(secrets, "Secret", "marketplace-kafka-ca"); ca == nil || ca.StringData[path.Base(caFile)] == "" {
		t.Errorf("secret.example.yaml: no Secret marketplace-kafka-ca with the key %s", path.Base(caFile))
	}
	for _, m := range All {
		if s := findDoc(secrets, "Secret", m.Name+"-kafka"); s == nil || s.StringData[path.Base(pwFile)] == "" || len(s.StringData) != 1 {
			t.Errorf("secret.example.yaml: no Secret %s-kafka with only the key %s", m.Name, path.Base(pwFile))
		}
		d := findDoc(readKafkaDocs(t, m.Name+".yaml"), "Deployment", m.Name)
		if d == nil || len(d.Spec.Template.Spec.Containers) != 1 {
			t.Fatalf("k8s/%s.yaml: no Deployment %s with one container", m.Name, m.Name)
		}
		c := d.Spec.Template.Spec.Containers[0]
		user := ""
		for _, e := range c.Env {
			if e.Name == "KAFKA_SASL_USERNAME" {
				user = e.Value
			}
		}
		if user != m.Name {
			t.Errorf("%s: KAFKA_SASL_USERNAME=%q, want its own user %q", m.Name, user, m.Name)
		}
		if !slices.ContainsFunc(c.EnvFrom, func(e struct {
			ConfigMapRef *struct{ Name string } `yaml:"configMapRef"`
		}) bool {
			return e.ConfigMapRef != nil && e.ConfigMapRef.Name == "marketplace-services"
		}) {
			t.Errorf("%s: does not take the ConfigMap marketplace-services", m.Name)
		}
		mounted := false
		for _, vm := range c.VolumeMounts {
			mounted = mounted || (vm.Name == "kafka" && vm.MountPath == mount && vm.ReadOnly)
		}
		var sources []string
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Name == "kafka" && v.Projected != nil {
				for _, src := range v.Projected.Sources {
					if src.Secret != nil {
						sources = append(sources, src.Secret.Name)
					}
				}
			}
		}
		slices.Sort(sources)
		if want := slices.Sorted(slices.Values([]string{m.Name + "-kafka", "marketplace-kafka-ca"})); !mounted || !slices.Equal(sources, want) {
			t.Errorf("%s: the volume kafka at %s (read only) from the Secrets %v: mounted %v, from %v", m.Name, mount, want, mounted, sources)
		}
	}
	gw := findDoc(readKafkaDocs(t, "gateway.yaml"), "Deployment", "gateway")
	if gw == nil {
		t.Fatal("no gateway Deployment")
	}
	for _, c := range gw.Spec.Template.Spec.Containers {
		for _, e := range c.Env {
			if strings.HasPrefix(e.Name, "KAFKA_") {
				t.Errorf("the gateway sets %s", e.Name)
			}
		}
		for _, vm := range c.VolumeMounts {
			if vm.MountPath == mount {
				t.Error("the gateway mounts the Kafka credentials")
			}
		}
	}
}
