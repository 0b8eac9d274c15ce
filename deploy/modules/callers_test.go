package modules

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// k8sDoc is what the callers tests read of a Kubernetes object.
type k8sDoc struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		// A Deployment's.
		Template struct {
			Spec struct {
				Containers []struct {
					EnvFrom []struct {
						ConfigMapRef *struct {
							Name string `yaml:"name"`
						} `yaml:"configMapRef"`
						SecretRef *struct {
							Name string `yaml:"name"`
						} `yaml:"secretRef"`
					} `yaml:"envFrom"`
					Env []struct {
						Name  string  `yaml:"name"`
						Value *string `yaml:"value"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
		// A NetworkPolicy's.
		PodSelector *selector `yaml:"podSelector"`
		PolicyTypes []string  `yaml:"policyTypes"`
		Ingress     []struct {
			From []struct {
				PodSelector       *selector `yaml:"podSelector"`
				NamespaceSelector *selector `yaml:"namespaceSelector"`
			} `yaml:"from"`
			Ports []struct {
				Port any `yaml:"port"`
			} `yaml:"ports"`
		} `yaml:"ingress"`
	} `yaml:"spec"`
}

type selector struct {
	MatchLabels      map[string]string `yaml:"matchLabels"`
	MatchExpressions []any             `yaml:"matchExpressions"`
}

// k8sDocs reads every object of the files kustomization.yaml applies.
func k8sDocs(t *testing.T) []k8sDoc {
	t.Helper()
	var kust struct {
		Resources []string `yaml:"resources"`
	}
	b, err := os.ReadFile(filepath.Join(root, "k8s", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &kust); err != nil {
		t.Fatal(err)
	}
	var out []k8sDoc
	for _, res := range kust.Resources {
		out = append(out, readK8s(t, res)...)
	}
	return out
}

func readK8s(t *testing.T, file string) []k8sDoc {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "k8s", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []k8sDoc
	dec := yaml.NewDecoder(f)
	for {
		var d k8sDoc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, d)
	}
}

const appLabel = "app.kubernetes.io/name"

// Each service's Deployment in k8s/ accepts internal calls from exactly the
// modules that declare calls to it (INTERNAL_CALLERS), holds its own key
// (the Secret <service>-service-key, no other's) and every public key (the
// ConfigMap marketplace-service-keys); the gateway holds no key. Each
// service's NetworkPolicy lets in only the gateway and those callers (and
// Prometheus from the monitoring namespace), so an undeclared edge is closed
// on the network too.
func TestKubernetesCallersAreTheDeclaredOnes(t *testing.T) {
	docs := k8sDocs(t)
	deployments, policies := map[string]k8sDoc{}, map[string][]k8sDoc{}
	publicKeys := false
	for _, d := range docs {
		switch d.Kind {
		case "Deployment":
			deployments[d.Metadata.Name] = d
		case "NetworkPolicy":
			if d.Spec.PodSelector == nil || d.Spec.PodSelector.MatchLabels[appLabel] == "" {
				t.Errorf("NetworkPolicy %s selects no one program", d.Metadata.Name)
				continue
			}
			name := d.Spec.PodSelector.MatchLabels[appLabel]
			policies[name] = append(policies[name], d)
		case "ConfigMap":
			if _, ok := d.Data["SERVICE_PUBLIC_KEYS"]; ok && d.Metadata.Name == "marketplace-service-keys" {
				publicKeys = true
			}
		}
	}
	if !publicKeys {
		t.Error("no ConfigMap marketplace-service-keys with SERVICE_PUBLIC_KEYS")
	}
	keySecrets := func(d k8sDoc) (secrets []string, keysMap bool) {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.EnvFrom {
				if e.SecretRef != nil && strings.HasSuffix(e.SecretRef.Name, "-service-key") {
					secrets = append(secrets, e.SecretRef.Name)
				}
				if e.ConfigMapRef != nil && e.ConfigMapRef.Name == "marketplace-service-keys" {
					keysMap = true
				}
			}
		}
		return secrets, keysMap
	}
	for _, name := range Names() {
		d, ok := deployments[name]
		if !ok {
			t.Errorf("no Deployment %s", name)
			continue
		}
		want := strings.Join(Callers(All, name), ",")
		var got *string
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.Name == "INTERNAL_CALLERS" {
					got = e.Value
				}
			}
		}
		if got == nil || *got != want {
			t.Errorf("Deployment %s: INTERNAL_CALLERS %v, want %q (the modules that declare calls to it)", name, deref(got), want)
		}
		if secrets, keysMap := keySecrets(d); !slices.Equal(secrets, []string{name + "-service-key"}) || !keysMap {
			t.Errorf("Deployment %s: key Secrets %v (want its own alone), public keys ConfigMap %v", name, secrets, keysMap)
		}

		ps := policies[name]
		if len(ps) != 1 {
			t.Errorf("%s: %d NetworkPolicies, want 1", name, len(ps))
			continue
		}
		p := ps[0]
		if !slices.Contains(p.Spec.PolicyTypes, "Ingress") {
			t.Errorf("NetworkPolicy %s does not restrict ingress: %v", name, p.Spec.PolicyTypes)
		}
		var from []string
		for _, rule := range p.Spec.Ingress {
			if len(rule.From) == 0 {
				t.Errorf("NetworkPolicy %s: a rule open to everyone", name)
			}
			for _, peer := range rule.From {
				switch {
				case peer.PodSelector != nil && peer.NamespaceSelector == nil && len(peer.PodSelector.MatchExpressions) == 0 &&
					len(peer.PodSelector.MatchLabels) == 1 && peer.PodSelector.MatchLabels[appLabel] != "":
					from = append(from, peer.PodSelector.MatchLabels[appLabel])
				case peer.PodSelector == nil && peer.NamespaceSelector != nil &&
					len(peer.NamespaceSelector.MatchLabels) == 1 && peer.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] == "monitoring":
					// Prometheus scrapes /metrics on the service's port.
				default:
					t.Errorf("NetworkPolicy %s: a source that is no one program of the namespace nor Prometheus's: %+v", name, peer)
				}
			}
		}
		slices.Sort(from)
		if wantFrom := append([]string{"gateway"}, Callers(All, name)...); !slices.Equal(from, slices.Sorted(slices.Values(wantFrom))) {
			t.Errorf("NetworkPolicy %s lets in %v, want the gateway and the modules that declare calls to it %v", name, from, Callers(All, name))
		}
	}
	if secrets, _ := keySecrets(deployments["gateway"]); len(secrets) > 0 {
		t.Errorf("the gateway gets service keys %v", secrets)
	}
	// The example Secrets name one key Secret per service.
	examples := map[string]bool{}
	for _, d := range readK8s(t, "secret.example.yaml") {
		if strings.HasSuffix(d.Metadata.Name, "-service-key") {
			examples[strings.TrimSuffix(d.Metadata.Name, "-service-key")] = true
		}
	}
	for _, name := range Names() {
		if !examples[name] {
			t.Errorf("secret.example.yaml has no Secret %s-service-key", name)
		}
	}
}

func deref(s *string) any {
	if s == nil {
		return "unset"
	}
	return *s
}

// Each service of docker-compose.yml accepts internal calls from exactly the
// modules that declare calls to it, and gets its own key variable; the
// gateway gets no key setting.
func TestComposeCallersAreTheDeclaredOnes(t *testing.T) {
	var compose struct {
		Services map[string]struct {
			Environment map[string]any `yaml:"environment"`
		} `yaml:"services"`
	}
	b, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &compose); err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		env := compose.Services[name].Environment
		if got, want := env["INTERNAL_CALLERS"], strings.Join(Callers(All, name), ","); got != want {
			t.Errorf("compose %s: INTERNAL_CALLERS %v, want %q (the modules that declare calls to it)", name, got, want)
		}
		if key, _ := env["SERVICE_KEY"].(string); !strings.HasPrefix(key, "${"+strings.ToUpper(name)+"_SERVICE_KEY:?") {
			t.Errorf("compose %s: SERVICE_KEY %q, want its own variable %s_SERVICE_KEY, required", name, key, strings.ToUpper(name))
		}
		if keys, _ := env["SERVICE_PUBLIC_KEYS"].(string); !strings.HasPrefix(keys, "${SERVICE_PUBLIC_KEYS:?") {
			t.Errorf("compose %s: SERVICE_PUBLIC_KEYS %q", name, keys)
		}
	}
	for _, k := range []string{"SERVICE_KEY", "SERVICE_PUBLIC_KEYS", "INTERNAL_CALLERS"} {
		if _, has := compose.Services["gateway"].Environment[k]; has {
			t.Errorf("the compose gateway gets %s", k)
		}
	}
}

func TestCallers(t *testing.T) {
	if got := Callers(All, "catalog"); !slices.Equal(got, []string{"addresses", "customers", "notifications", "payments", "payouts", "platformconfig", "reviews"}) {
		t.Errorf("catalog's callers %v", got)
	}
	if got := Callers(All, "notifications"); len(got) != 0 {
		t.Errorf("notifications' callers %v", got)
	}
}
