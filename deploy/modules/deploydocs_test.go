package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"marketplace/libs/config"
)

// The deployment documents cover every service, and every setting a module
// reads is given to it by docker-compose.yml and by its k8s manifest (or the
// Secret example it takes them from).
func TestDeploymentDocsCoverEveryService(t *testing.T) {
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var compose struct {
		Services map[string]struct {
			Environment map[string]any `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(read("docker-compose.yml")), &compose); err != nil {
		t.Fatal(err)
	}
	deployReadme, k8sReadme, secrets := read("deploy/README.md"), read("k8s/README.md"), read("k8s/secret.example.yaml")
	for _, m := range All {
		for doc, text := range map[string]string{"deploy/README.md": deployReadme, "k8s/README.md": k8sReadme} {
			if !strings.Contains(text, "`"+m.Name+"`") && !strings.Contains(text, m.Name+".yaml") {
				t.Errorf("%s does not mention the %s service", doc, m.Name)
			}
		}
		if m.Settings == nil {
			continue
		}
		manifest := read("k8s/" + m.Name + ".yaml")
		for _, v := range config.Variables(m.Settings()) {
			if _, ok := compose.Services[m.Name].Environment[v]; !ok {
				t.Errorf("docker-compose.yml does not give %s to the %s service", v, m.Name)
			}
			if !strings.Contains(manifest, "name: "+v) && !strings.Contains(secrets, v+":") {
				t.Errorf("k8s/%s.yaml does not set %s (nor does secret.example.yaml)", m.Name, v)
			}
			if !strings.Contains(k8sReadme, v) {
				t.Errorf("k8s/README.md does not mention %s (%s)", v, m.Name)
			}
		}
	}
}

// Users' tokens are the gateway's business: with the development secret
// anyone holding it mints an administrator's token, so no deployment document
// gives it (or the gateway's signing key) to a service; the services get the
// gateway's public key instead (libs/auth, AUTH_GATEWAY_PUBLIC_KEY). The
// launcher of make run-distributed is held to the same in deploy/launch.
func TestOnlyTheGatewayGetsTheUsersTokenSecret(t *testing.T) {
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
	mintsTokens := []string{"AUTH_DEV_SECRET", "AUTH_DEV_SECRET_FILE", "AUTH_GATEWAY_KEY", "AUTH_GATEWAY_KEY_FILE"}
	for _, n := range Names() {
		env := compose.Services[n].Environment
		for _, k := range mintsTokens {
			if _, has := env[k]; has {
				t.Errorf("docker-compose.yml gives %s to the %s service", k, n)
			}
		}
		if _, has := env["AUTH_GATEWAY_PUBLIC_KEY"]; !has {
			t.Errorf("docker-compose.yml does not give AUTH_GATEWAY_PUBLIC_KEY to the %s service", n)
		}
	}
	gw := compose.Services["gateway"].Environment
	for _, k := range []string{"AUTH_DEV_SECRET", "AUTH_GATEWAY_KEY"} {
		if _, has := gw[k]; !has {
			t.Errorf("docker-compose.yml does not give %s to the gateway", k)
		}
	}
	files, err := filepath.Glob(filepath.Join(root, "k8s", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("k8s manifests: %v %v", files, err)
	}
	files = append(files, filepath.Join(root, "deploy", "docker", "Dockerfile"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range mintsTokens {
			if strings.Contains(string(b), k) && filepath.Base(f) != "gateway.yaml" {
				t.Errorf("%s names %s: only the gateway may hold it", f, k)
			}
		}
	}
}
