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
