{{/* Chart name. */}}
{{- define "gnomon.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-qualified name; role objects append "-<role>". */}}
{{- define "gnomon.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "gnomon.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gnomon.labels" -}}
helm.sh/chart: {{ include "gnomon.chart" . }}
app.kubernetes.io/name: {{ include "gnomon.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gnomon
{{- end }}

{{/* Selector labels of one component: include "gnomon.selectorLabels" (list $ "scheduler"). */}}
{{- define "gnomon.selectorLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ include "gnomon.name" $ }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{- define "gnomon.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion (toString .Values.image.tag)) }}
{{- end }}

{{- define "gnomon.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gnomon.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Name of the Secret the chart creates (store URL and/or cluster token). */}}
{{- define "gnomon.secretName" -}}
{{- include "gnomon.fullname" . }}
{{- end }}

{{/* The store URL the chart itself stores, or "" when an existing Secret is used. */}}
{{- define "gnomon.storeUrl" -}}
{{- if .Values.store.existingSecret }}
{{- else if .Values.store.url }}
{{- .Values.store.url }}
{{- else if .Values.allInOne }}
{{- print "sqlite:/var/lib/gnomon/gnomon.db" }}
{{- end }}
{{- end }}

{{/*
The Secret holding the store URL: store.existingSecret; else the chart's own
Secret when it has a URL to put there; else "<fullname>-store", a Secret the
installer creates (the chart never invents a database password).
*/}}
{{- define "gnomon.storeSecretName" -}}
{{- if .Values.store.existingSecret }}
{{- .Values.store.existingSecret }}
{{- else if include "gnomon.storeUrl" . }}
{{- include "gnomon.secretName" . }}
{{- else }}
{{- include "gnomon.fullname" . }}-store
{{- end }}
{{- end }}
{{- define "gnomon.storeSecretKey" -}}
{{- if .Values.store.existingSecret }}{{ .Values.store.existingSecretKey }}{{ else }}store-url{{ end }}
{{- end }}
{{- define "gnomon.clusterTokenSecretName" -}}
{{- default (include "gnomon.secretName" .) .Values.clusterToken.existingSecret }}
{{- end }}
{{- define "gnomon.clusterTokenSecretKey" -}}
{{- if .Values.clusterToken.existingSecret }}{{ .Values.clusterToken.existingSecretKey }}{{ else }}cluster-token{{ end }}
{{- end }}

{{/* Refuses settings that cannot work. */}}
{{- define "gnomon.validate" -}}
{{- if and (not .Values.allInOne) (hasPrefix "sqlite:" (toString .Values.store.url)) }}
{{- fail "store.url: SQLite is a local file and cannot be shared between pods; use mysql://... or allInOne=true" }}
{{- end }}
{{- if and .Values.sampleExecutor.enabled (not .Values.sampleExecutor.accessTokenSecret.name) }}
{{- fail "sampleExecutor.accessTokenSecret.name: name the Secret holding the group's access token (gnomonctl group create prints it)" }}
{{- end }}
{{- end }}

{{/* Service address of a role ("registry", "log", "scheduler"), host:port. */}}
{{- define "gnomon.endpoint" -}}
{{- $ := index . 0 -}}
{{- if $.Values.allInOne -}}
{{ include "gnomon.fullname" $ }}:{{ $.Values.port }}
{{- else -}}
{{ include "gnomon.fullname" $ }}-{{ index . 1 }}:{{ $.Values.port }}
{{- end -}}
{{- end }}

{{/*
The gnomond pod spec shared by the role Deployments.
Call with (dict "root" $ "role" "scheduler" "roles" "scheduler" "cfg" .Values.scheduler).
*/}}
{{- define "gnomon.podTemplate" -}}
{{- $ := .root -}}
{{- $cfg := .cfg -}}
metadata:
  labels:
    {{- include "gnomon.labels" $ | nindent 4 }}
    app.kubernetes.io/component: {{ .role }}
    {{- with $.Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    # Rolls the pods when the store URL or cluster token settings change.
    checksum/secret: {{ toJson (list $.Values.store $.Values.clusterToken) | sha256sum }}
    {{- with (merge (dict) ($cfg.podAnnotations | default dict) ($.Values.podAnnotations | default dict)) }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "gnomon.serviceAccountName" $ }}
  automountServiceAccountToken: {{ $.Values.serviceAccount.automountServiceAccountToken }}
  {{- with $.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $.Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  terminationGracePeriodSeconds: {{ $.Values.terminationGracePeriodSeconds }}
  securityContext:
    {{- toYaml $.Values.podSecurityContext | nindent 4 }}
  containers:
    - name: gnomond
      image: {{ include "gnomon.image" $ | quote }}
      imagePullPolicy: {{ $.Values.image.pullPolicy }}
      command:
        {{- toYaml $.Values.image.command | nindent 8 }}
      args:
        - --roles={{ .roles }}
        - --listen=0.0.0.0:{{ $.Values.port }}
        {{- with $cfg.extraArgs }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      env:
        - name: GNOMON_STORE
          valueFrom:
            secretKeyRef:
              name: {{ include "gnomon.storeSecretName" $ }}
              key: {{ include "gnomon.storeSecretKey" $ }}
        {{- if not $.Values.allInOne }}
        {{- /* All roles in one process need none: gnomond makes its own. */}}
        - name: GNOMON_CLUSTER_TOKEN
          valueFrom:
            secretKeyRef:
              name: {{ include "gnomon.clusterTokenSecretName" $ }}
              key: {{ include "gnomon.clusterTokenSecretKey" $ }}
        {{- end }}
        {{- if eq .role "scheduler" }}
        - name: GNOMON_REGISTRY_ENDPOINT
          value: {{ include "gnomon.endpoint" (list $ "registry") | quote }}
        {{- end }}
        {{- if $.Values.adminTokenFile.enabled }}
        - name: GNOMON_ADMIN_TOKEN_FILE
          value: {{ ternary "/var/lib/gnomon/admin-token" "/var/run/gnomon/admin-token" $.Values.allInOne | quote }}
        {{- end }}
        {{- if $.Values.metrics.enabled }}
        - name: GNOMON_METRICS_LISTEN
          value: "0.0.0.0:{{ $.Values.metrics.port }}"
        {{- end }}
        {{- range $k, $v := $.Values.config }}
        - name: GNOMON_{{ $k | replace "-" "_" | upper }}
          value: {{ toString $v | quote }}
        {{- end }}
        {{- with $cfg.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      ports:
        - name: grpc
          containerPort: {{ $.Values.port }}
          protocol: TCP
        {{- if $.Values.metrics.enabled }}
        - name: metrics
          containerPort: {{ $.Values.metrics.port }}
          protocol: TCP
        {{- end }}
      # Startup and liveness ask the "liveness" service, which stays SERVING
      # while the process serves: a store outage must not restart pods.
      # Readiness asks the overall status, NOT_SERVING while the store is
      # unreachable or a scheduler cannot hold its partitions.
      startupProbe:
        grpc:
          port: {{ $.Values.port }}
          service: liveness
        periodSeconds: {{ $.Values.probes.startup.periodSeconds }}
        failureThreshold: {{ $.Values.probes.startup.failureThreshold }}
      livenessProbe:
        grpc:
          port: {{ $.Values.port }}
          service: liveness
        periodSeconds: {{ $.Values.probes.liveness.periodSeconds }}
        timeoutSeconds: {{ $.Values.probes.liveness.timeoutSeconds }}
        failureThreshold: {{ $.Values.probes.liveness.failureThreshold }}
      readinessProbe:
        grpc:
          port: {{ $.Values.port }}
        periodSeconds: {{ $.Values.probes.readiness.periodSeconds }}
        timeoutSeconds: {{ $.Values.probes.readiness.timeoutSeconds }}
        failureThreshold: {{ $.Values.probes.readiness.failureThreshold }}
      resources:
        {{- toYaml (default $.Values.resources $cfg.resources) | nindent 8 }}
      securityContext:
        {{- toYaml $.Values.securityContext | nindent 8 }}
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        - name: run
          mountPath: /var/run/gnomon
        {{- if $.Values.allInOne }}
        - name: data
          mountPath: /var/lib/gnomon
        {{- end }}
  volumes:
    - name: tmp
      emptyDir: {}
    - name: run
      emptyDir: {}
    {{- if $.Values.allInOne }}
    - name: data
      {{- if $.Values.persistence.enabled }}
      persistentVolumeClaim:
        claimName: {{ default (include "gnomon.fullname" $) $.Values.persistence.existingClaim }}
      {{- else }}
      emptyDir: {}
      {{- end }}
    {{- end }}
  {{- with $.Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $.Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if $.Values.affinity }}
  affinity:
    {{- toYaml $.Values.affinity | nindent 4 }}
  {{- else if not $.Values.allInOne }}
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels:
                {{- include "gnomon.selectorLabels" (list $ .role) | nindent 16 }}
    {{- end }}
{{- end }}
