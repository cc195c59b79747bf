package harness

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"path/filepath"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Files that kube-apiserver reads from the Kube directory.
const (
	kubeTokenFile = "tokens.csv"
	kubeSAKeyFile = "service-account.key"
)

// Users of the test cluster; each kubeconfig has one context named after its user.
const (
	kubeAdminUser  = "admin"
	kubeViewerUser = "viewer"
	// kubeViewerRole names the ClusterRole and ClusterRoleBinding of the viewer.
	kubeViewerRole = "karpnet-e2e-viewer"
)

// kubeTokens are the static bearer tokens of the admin and the viewer.
type kubeTokens struct {
	admin, viewer string
}

// kubeWriteAuth writes the static token file and the service-account key into dir.
func kubeWriteAuth(dir string) (kubeTokens, error) {
	var t kubeTokens
	var err error
	if t.admin, err = kubeRandomToken(); err != nil {
		return t, err
	}
	if t.viewer, err = kubeRandomToken(); err != nil {
		return t, err
	}
	// token,user,uid,"group1,group2"
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n%s,%s,%s\n",
		t.admin, kubeAdminUser, kubeAdminUser, t.viewer, kubeViewerUser, kubeViewerUser)
	if err := kubeWriteFile(dir, kubeTokenFile, []byte(tokens)); err != nil {
		return t, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return t, fmt.Errorf("generating the service-account key: %w", err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return t, kubeWriteFile(dir, kubeSAKeyFile, pemKey)
}

// kubeRandomToken returns 32 random hex digits.
func kubeRandomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// kubeRESTConfig returns a client configuration for url with a bearer token, skipping TLS
// verification of the self-signed serving certificate.
func kubeRESTConfig(url, token string) *rest.Config {
	return &rest.Config{
		Host:            url,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             200,
		Burst:           400,
	}
}

// kubeWriteKubeconfig writes a kubeconfig at path for user with token, whose only context,
// also named user, is the current one.
func kubeWriteKubeconfig(path, url, user, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: url, InsecureSkipTLSVerify: true}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[user] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: user}
	cfg.CurrentContext = user
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", filepath.Base(path), err)
	}
	return nil
}

// kubeViewerRules are what the viewer may read: what karpnet reads outside Karpenter's API
// groups, so that karpnet meets Forbidden on NodePools, NodeClaims and EC2NodeClasses only.
func kubeViewerRules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "events", "pods"}, Verbs: read},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: read},
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets"}, Verbs: read},
		{APIGroups: []string{"crd.k8s.amazonaws.com"}, Resources: []string{"eniconfigs"}, Verbs: read},
	}
}

// kubeCreateViewerRBAC binds the viewer user to a ClusterRole with kubeViewerRules.
func kubeCreateViewerRBAC(ctx context.Context, cs kubernetes.Interface) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: kubeViewerRole},
		Rules:      kubeViewerRules(),
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating ClusterRole %s: %w", kubeViewerRole, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: kubeViewerRole},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: kubeViewerRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: kubeViewerUser}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating ClusterRoleBinding %s: %w", kubeViewerRole, err)
	}
	return nil
}
