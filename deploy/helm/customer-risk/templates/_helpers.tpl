{{/* Names, labels and the environment shared by every service. */}}

{{- define "crs.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crs.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of one service's resources: crs.componentName (dict "root" $ "name" "ingress") */}}
{{- define "crs.componentName" -}}
{{- printf "%s-%s" (include "crs.fullname" .root | trunc 50 | trimSuffix "-") .name -}}
{{- end -}}

{{- define "crs.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crs.selectorLabels" -}}
app.kubernetes.io/name: {{ include "crs.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "crs.labels" -}}
helm.sh/chart: {{ include "crs.chart" . }}
{{ include "crs.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: customer-risk-import-service
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* crs.componentSelectorLabels (dict "root" $ "name" "ingress") */}}
{{- define "crs.componentSelectorLabels" -}}
{{ include "crs.selectorLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "crs.componentLabels" -}}
{{ include "crs.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "crs.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{- define "crs.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "crs.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The chart's own Secret holds only credentials given inline in values. */}}
{{- define "crs.secretName" -}}
{{- printf "%s-credentials" (include "crs.fullname" .) -}}
{{- end -}}

{{- define "crs.needsSecret" -}}
{{- $k := and .Values.kafka.sasl.mechanism (not .Values.kafka.sasl.existingSecret) (not .Values.kafka.principals.enabled) -}}
{{- $r := and (or .Values.schemaRegistry.username .Values.schemaRegistry.password) (not .Values.schemaRegistry.existingSecret) -}}
{{- $m := not .Values.mongodb.existingSecret -}}
{{- if or $k $r $m }}true{{ end -}}
{{- end -}}

{{/* The data of the chart Secret, shared with the hook copy the init job reads. */}}
{{- define "crs.secretData" -}}
{{- if and .Values.kafka.sasl.mechanism (not .Values.kafka.sasl.existingSecret) (not .Values.kafka.principals.enabled) }}
kafka-sasl-username: {{ .Values.kafka.sasl.username | b64enc | quote }}
kafka-sasl-password: {{ .Values.kafka.sasl.password | b64enc | quote }}
{{- end }}
{{- if and (or .Values.schemaRegistry.username .Values.schemaRegistry.password) (not .Values.schemaRegistry.existingSecret) }}
schema-registry-username: {{ .Values.schemaRegistry.username | b64enc | quote }}
schema-registry-password: {{ .Values.schemaRegistry.password | b64enc | quote }}
{{- end }}
{{- if not .Values.mongodb.existingSecret }}
mongodb-uri: {{ .Values.mongodb.uri | b64enc | quote }}
{{- end }}
{{- end -}}

{{/*
Environment every process gets: crs.commonEnv (dict "root" $ "name" "ingress" "secretName" "...")
secretName lets the init job read the hook copy of the chart Secret.
*/}}
{{- define "crs.commonEnv" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $secret := .secretName | default (include "crs.secretName" $root) -}}
- name: SERVICE_NAME
  value: {{ .name | quote }}
- name: LOG_LEVEL
  value: {{ $v.logLevel | quote }}
- name: KAFKA_BROKERS
  value: {{ $v.kafka.brokers | quote }}
- name: KAFKA_SSL
  value: {{ $v.kafka.ssl | quote }}
- name: KAFKA_FETCH_MIN_BYTES
  value: {{ $v.kafka.fetchMinBytes | quote }}
- name: KAFKA_FETCH_MAX_WAIT_MS
  value: {{ $v.kafka.fetchMaxWaitMs | quote }}
- name: KAFKA_TXN_LINGER_MS
  value: {{ $v.kafka.txnLingerMs | quote }}
- name: KAFKA_BATCH_STALL_MS
  value: {{ $v.kafka.batchStallMs | quote }}
{{- if and $v.kafka.sasl.mechanism $v.kafka.principals.enabled }}
{{- /* Its own principal per service (docs/kafka-acls.md); the init job is the admin principal. */}}
{{- $principal := ternary "admin" .name (eq .name "admin-init") }}
{{- $user := include "crs.kafkaUsername" (dict "root" $root "name" $principal) }}
- name: KAFKA_SASL_MECHANISM
  value: {{ $v.kafka.sasl.mechanism | quote }}
- name: KAFKA_SASL_USERNAME
  value: {{ $user | quote }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      {{- if $v.kafka.principals.strimzi.enabled }}
      name: {{ $user }}
      key: password
      {{- else }}
      name: {{ $v.kafka.principals.existingSecret }}
      key: {{ printf "%s-password" $principal }}
      {{- end }}
{{- else if $v.kafka.sasl.mechanism }}
- name: KAFKA_SASL_MECHANISM
  value: {{ $v.kafka.sasl.mechanism | quote }}
- name: KAFKA_SASL_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $v.kafka.sasl.existingSecret | default $secret }}
      key: {{ ternary $v.kafka.sasl.existingSecretUsernameKey "kafka-sasl-username" (ne $v.kafka.sasl.existingSecret "") }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $v.kafka.sasl.existingSecret | default $secret }}
      key: {{ ternary $v.kafka.sasl.existingSecretPasswordKey "kafka-sasl-password" (ne $v.kafka.sasl.existingSecret "") }}
{{- end }}
- name: SCHEMA_REGISTRY_URL
  value: {{ $v.schemaRegistry.url | quote }}
{{- if or $v.schemaRegistry.existingSecret $v.schemaRegistry.username $v.schemaRegistry.password }}
- name: SCHEMA_REGISTRY_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $v.schemaRegistry.existingSecret | default $secret }}
      key: {{ ternary $v.schemaRegistry.existingSecretUsernameKey "schema-registry-username" (ne $v.schemaRegistry.existingSecret "") }}
- name: SCHEMA_REGISTRY_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $v.schemaRegistry.existingSecret | default $secret }}
      key: {{ ternary $v.schemaRegistry.existingSecretPasswordKey "schema-registry-password" (ne $v.schemaRegistry.existingSecret "") }}
{{- end }}
- name: MONGODB_URI
  valueFrom:
    secretKeyRef:
      name: {{ $v.mongodb.existingSecret | default $secret }}
      key: {{ ternary $v.mongodb.existingSecretUriKey "mongodb-uri" (ne $v.mongodb.existingSecret "") }}
- name: MONGODB_DB
  value: {{ $v.mongodb.database | quote }}
- name: MONGODB_OWNER_DATABASES
  value: {{ $v.mongodb.ownerDatabases | quote }}
- name: HEALTH_HOST
  value: "0.0.0.0"
- name: HEALTH_PORT
  value: {{ $v.healthPort | quote }}
- name: SHUTDOWN_TIMEOUT_MS
  value: {{ $v.shutdownTimeoutMs | quote }}
- name: TOPIC_PARTITIONS
  value: {{ $v.topics.partitions | quote }}
- name: TOPIC_REPLICATION_FACTOR
  value: {{ $v.topics.replicationFactor | quote }}
{{- end -}}

{{/*
Token verification settings of the processes that take API calls: the ingress and the
screening and callback HTTP APIs behind it. A file source is mounted at /etc/crs/auth (volume "jwks").
*/}}
{{- define "crs.authEnv" -}}
- name: AUTH_ISSUER
  value: {{ .Values.auth.issuer | quote }}
- name: AUTH_AUDIENCE
  value: {{ .Values.auth.audience | quote }}
{{- if eq (include "crs.jwksSource" .) "url" }}
- name: AUTH_JWKS_URL
  value: {{ .Values.auth.jwks.url | quote }}
{{- else }}
- name: AUTH_JWKS_FILE
  value: /etc/crs/auth/{{ .Values.auth.jwks.key }}
{{- end }}
{{- end -}}

{{/* In-cluster URL of the callback HTTP API, delivery log and redelivery (the callback Service, health port). */}}
{{- define "crs.callbackApiUrl" -}}
{{- printf "http://%s:%v" (include "crs.componentName" (dict "root" . "name" "callback")) .Values.healthPort -}}
{{- end -}}

{{/* In-cluster URL of the screening HTTP API (the screening Service, health port). */}}
{{- define "crs.screeningApiUrl" -}}
{{- printf "http://%s:%v" (include "crs.componentName" (dict "root" . "name" "screening")) .Values.healthPort -}}
{{- end -}}

{{/* Where the ingress, screening and callback find the JWKS: "url", "secret", "configmap" or "inline". */}}
{{- define "crs.jwksSource" -}}
{{- $j := .Values.auth.jwks -}}
{{- if $j.url -}}url
{{- else if $j.existingSecret -}}secret
{{- else if $j.existingConfigMap -}}configmap
{{- else if $j.inline -}}inline
{{- end -}}
{{- end -}}

{{/* Consumers may not outnumber the partitions of their input topic. */}}
{{- define "crs.validate" -}}
{{- $partitions := int .Values.topics.partitions -}}
{{- range $name, $svc := .Values.services -}}
{{- if and $svc.enabled (ne $name "ingress") -}}
{{- if gt (int $svc.replicaCount) $partitions -}}
{{- fail (printf "services.%s.replicaCount (%d) exceeds topics.partitions (%d): extra consumers would sit idle" $name (int $svc.replicaCount) $partitions) -}}
{{- end -}}
{{- if and $svc.autoscaling.enabled (gt (int $svc.autoscaling.maxReplicas) $partitions) -}}
{{- fail (printf "services.%s.autoscaling.maxReplicas (%d) exceeds topics.partitions (%d): extra consumers would sit idle" $name (int $svc.autoscaling.maxReplicas) $partitions) -}}
{{- end -}}
{{- end -}}
{{- if and $svc.enabled $svc.autoscaling.enabled (gt (int $svc.autoscaling.minReplicas) (int $svc.autoscaling.maxReplicas)) -}}
{{- fail (printf "services.%s.autoscaling.minReplicas exceeds maxReplicas" $name) -}}
{{- end -}}
{{- if le (int $svc.terminationGracePeriodSeconds) (div (int $.Values.shutdownTimeoutMs) 1000) -}}
{{- fail (printf "services.%s.terminationGracePeriodSeconds must exceed shutdownTimeoutMs/1000 so the graceful shutdown can finish" $name) -}}
{{- end -}}
{{- end -}}
{{- if and (or .Values.services.ingress.enabled .Values.services.screening.enabled .Values.services.callback.enabled) (not (include "crs.jwksSource" .)) -}}
{{- fail "auth.jwks: set url, existingSecret, existingConfigMap or inline so the ingress, screening and callback can verify tokens" -}}
{{- end -}}
{{- if and .Values.privacy.required (not .Values.privacy.kek.existingSecret) -}}
{{- fail "privacy.kek.existingSecret: set the Secret holding the key-encryption key set (docs/privacy.md), or privacy.required=false to store personal data in plain" -}}
{{- end -}}
{{- if and .Values.services.callback.enabled (not (or .Values.callback.signingKey.existingSecret .Values.callback.signingKey.value)) -}}
{{- fail "callback.signingKey: set existingSecret (recommended) or value so callbacks can be signed" -}}
{{- end -}}
{{- if and .Values.kafka.sasl.mechanism (not .Values.kafka.sasl.existingSecret) (not .Values.kafka.sasl.username) (not .Values.kafka.principals.enabled) -}}
{{- fail "kafka.sasl: a mechanism is set but neither existingSecret nor username is" -}}
{{- end -}}
{{- $principals := .Values.kafka.principals -}}
{{- if $principals.enabled -}}
{{- if not (has .Values.kafka.sasl.mechanism (list "scram-sha-512" "scram-sha-256")) -}}
{{- fail "kafka.principals: per-service principals need kafka.sasl.mechanism scram-sha-512 (or scram-sha-256)" -}}
{{- end -}}
{{- if and $principals.strimzi.enabled (not $principals.strimzi.cluster) -}}
{{- fail "kafka.principals.strimzi.cluster: name the Strimzi Kafka cluster the users belong to" -}}
{{- end -}}
{{- if and (not $principals.strimzi.enabled) (not $principals.existingSecret) -}}
{{- fail "kafka.principals.existingSecret: name the Secret with <service>-password keys (or enable strimzi)" -}}
{{- end -}}
{{- if and $principals.strimzi.enabled (ne .Values.kafka.sasl.mechanism "scram-sha-512") -}}
{{- fail "kafka.principals.strimzi: Strimzi users are SCRAM-SHA-512; set kafka.sasl.mechanism scram-sha-512" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* files/kafka-acls.json: the ACLs of every service principal (docs/kafka-acls.md). */}}
{{- define "crs.kafkaAcls" -}}
{{- .Files.Get "files/kafka-acls.json" -}}
{{- end -}}

{{/* SASL username of a principal: crs.kafkaUsername (dict "root" $ "name" "ingress") */}}
{{- define "crs.kafkaUsername" -}}
{{- printf "%s%s" .root.Values.kafka.principals.usernamePrefix .name -}}
{{- end -}}

{{/* A principal is rendered when its service is deployed; admin always (init job, operator CLIs). */}}
{{- define "crs.principalDeployed" -}}
{{- $services := .root.Values.services -}}
{{- if eq .principal "admin" -}}true
{{- else if hasKey $services .principal -}}
{{- if (index $services .principal).enabled -}}true{{- end -}}
{{- end -}}
{{- end -}}
