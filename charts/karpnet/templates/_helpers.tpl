{{/* The release's full name: the release name when it holds the chart's name. */}}
{{- define "karpnet.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "karpnet.serviceAccountName" -}}
{{- default (include "karpnet.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* The labels selectors use. */}}
{{- define "karpnet.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels: deploy/'s, and Helm's. */}}
{{- define "karpnet.labels" -}}
{{ include "karpnet.selectorLabels" . }}
app.kubernetes.io/component: exporter
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
