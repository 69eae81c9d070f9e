# Sourced by scripts/es.sh when ES_REALMS=1: the node of integrationtest/realms_test.go, with
# its own state dir (<repo>/.es-realms) and ports, under a self-generated trial licence (the PKI
# and JWT realms are disabled under basic). Its realms, in order:
#   file1  the file realm (users of bin/elasticsearch-users, roles of config/roles.yml)
#   pki1   client certificates signed by a client CA made here (certs/client-ca.crt); users are
#          given roles by their certificate's DN in config/role_mapping.yml; no delegation
#   jwt1   RS256 JWTs signed by a key made here, checked against config/jwks.json (a file JWKS);
#          the principal is the `sub` claim, whose roles are those of the file-realm user of
#          that name (authorization_realms: file1): the JWT realm maps roles only through role
#          mappings stored in the .security index, which this archive cannot create
# and the reserved realm (elastic) beside them. HTTPS asks for a client certificate
# (client_authentication: optional) and trusts the client CA for it.
#
# Files made once per state dir in <state>/realms (kept, so certificates stay valid across
# restarts) and printed by 'env':
#   ES_PKI_CERT, ES_PKI_KEY                  CN=otelcol-es-pki-mapped: mapped to otelcoles-all
#   ES_PKI_UNMAPPED_CERT, ES_PKI_UNMAPPED_KEY CN=otelcol-es-pki-unmapped: authenticates, no role
#   ES_PKI_NOCN_CERT, ES_PKI_NOCN_KEY        a subject without CN: the PKI realm finds no user
#   ES_PKI_CLIENT_CA                         the client CA
#   ES_JWT                                   a JWT for ES_JWT_PRINCIPAL, made at each start,
#                                            valid 30 days
# The role otelcoles-all is the one of ensure_privilege_users (es.sh).

REALMS_DIR="$ES_STATE_DIR/realms"
REALMS_JWT_ISSUER="otelcol-es-test-issuer"
REALMS_JWT_AUDIENCE="otelcol-es"
REALMS_JWT_PRINCIPAL="otelcol-es-jwt"
REALMS_JWT_KID="otelcol-es-test"
REALMS_ROLE="otelcoles-all"
REALMS_MAPPED_DN="CN=otelcol-es-pki-mapped,O=otelcol-es"

# The settings added to NODE_SETTINGS; http.ssl.certificate_authorities is replaced there.
REALMS_SETTINGS=(
	"-Expack.license.self_generated.type=trial"
	"-Expack.security.http.ssl.client_authentication=optional"
	"-Expack.security.authc.realms.file.file1.order=0"
	"-Expack.security.authc.realms.pki.pki1.order=1"
	"-Expack.security.authc.realms.pki.pki1.certificate_authorities=certs/client-ca.crt"
	"-Expack.security.authc.realms.pki.pki1.delegation.enabled=false"
	"-Expack.security.authc.realms.jwt.jwt1.order=2"
	"-Expack.security.authc.realms.jwt.jwt1.allowed_issuer=$REALMS_JWT_ISSUER"
	"-Expack.security.authc.realms.jwt.jwt1.allowed_audiences=$REALMS_JWT_AUDIENCE"
	"-Expack.security.authc.realms.jwt.jwt1.allowed_signature_algorithms=RS256"
	"-Expack.security.authc.realms.jwt.jwt1.pkc_jwkset_path=jwks.json"
	"-Expack.security.authc.realms.jwt.jwt1.claims.principal=sub"
	"-Expack.security.authc.realms.jwt.jwt1.client_authentication.type=none"
	"-Expack.security.authc.realms.jwt.jwt1.authorization_realms=file1"
)

# realms_node_settings: NODE_SETTINGS of the realms node: HTTPS trusts the client CA (the only
# certificates clients present), and the realm settings above.
realms_node_settings() {
	local i
	for i in "${!NODE_SETTINGS[@]}"; do
		if [[ "${NODE_SETTINGS[$i]}" == -Expack.security.http.ssl.certificate_authorities=* ]]; then
			NODE_SETTINGS[i]="-Expack.security.http.ssl.certificate_authorities=certs/client-ca.crt"
		fi
	done
	NODE_SETTINGS+=("${REALMS_SETTINGS[@]}")
}

b64url() { basenc --base64url -w0 | tr -d '='; }

# realms_client_cert NAME SUBJECT: a key and a client certificate signed by the client CA.
realms_client_cert() {
	local name="$1" subject="$2" d="$REALMS_DIR"
	openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$d/$name.key" -out "$d/$name.csr" 2>/dev/null &&
		printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
			"extendedKeyUsage=clientAuth" >"$d/client.ext" &&
		openssl x509 -req -in "$d/$name.csr" -CA "$d/client-ca.crt" -CAkey "$d/client-ca.key" -CAcreateserial \
			-days 3650 -extfile "$d/client.ext" -out "$d/$name.crt" 2>/dev/null &&
		rm -f "$d/$name.csr" "$d/client.ext"
}

# realms_make_files: the client CA, the three client certificates, the JWT signing key and the
# JWKS with its public key; made once per state dir.
realms_make_files() {
	local d="$REALMS_DIR"
	if [[ -s "$d/client-ca.crt" && -s "$d/pki-mapped.crt" && -s "$d/pki-unmapped.crt" &&
		-s "$d/pki-nocn.crt" && -s "$d/jwt.key" && -s "$d/jwks.json" ]]; then
		return 0
	fi
	rm -rf "$d"
	mkdir -p "$d"
	chmod 700 "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=otelcol-es test client CA" \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
		-keyout "$d/client-ca.key" -out "$d/client-ca.crt" 2>/dev/null &&
		realms_client_cert pki-mapped "/O=otelcol-es/CN=otelcol-es-pki-mapped" &&
		realms_client_cert pki-unmapped "/O=otelcol-es/CN=otelcol-es-pki-unmapped" &&
		realms_client_cert pki-nocn "/O=otelcol-es/OU=no common name" &&
		openssl genrsa -out "$d/jwt.key" 2048 2>/dev/null ||
		die "openssl could not make the client certificates or the JWT key in $d" "check that openssl works ('openssl version')"
	local n
	n="$(openssl rsa -in "$d/jwt.key" -noout -modulus | sed 's/^Modulus=//' | basenc --base16 -d | b64url)"
	[[ -n "$n" ]] || die "cannot read the modulus of $d/jwt.key" "remove $d and start again"
	printf '{"keys":[{"kty":"RSA","use":"sig","alg":"RS256","kid":"%s","n":"%s","e":"AQAB"}]}\n' \
		"$REALMS_JWT_KID" "$n" >"$d/jwks.json"
	rm -f "$d/client-ca.srl"
	chmod 644 "$d"/*.crt "$d/jwks.json"
	chmod 600 "$d"/*.key
}

# realms_jwt: prints an RS256 JWT for REALMS_JWT_PRINCIPAL, valid 30 days from now.
realms_jwt() {
	local now header payload signature
	now="$(date +%s)"
	header="$(printf '{"alg":"RS256","typ":"JWT","kid":"%s"}' "$REALMS_JWT_KID" | b64url)"
	payload="$(printf '{"iss":"%s","aud":"%s","sub":"%s","iat":%s,"exp":%s}' "$REALMS_JWT_ISSUER" \
		"$REALMS_JWT_AUDIENCE" "$REALMS_JWT_PRINCIPAL" "$now" "$((now + 30 * 24 * 3600))" | b64url)"
	signature="$(printf '%s.%s' "$header" "$payload" | openssl dgst -sha256 -sign "$REALMS_DIR/jwt.key" -binary | b64url)"
	[[ -n "$signature" ]] || die "openssl could not sign the JWT with $REALMS_DIR/jwt.key" "remove $REALMS_DIR and start again"
	printf '%s.%s.%s' "$header" "$payload" "$signature"
}

# ensure_realms: the files above, the client CA and JWKS in the node's config directory, the
# DN role mapping of the mapped certificate, and the file-realm user of the JWT principal.
ensure_realms() {
	require_tool openssl "install openssl ('apt-get install openssl'); it makes the client certificates and signs the JWT"
	require_tool basenc "install coreutils 8.31 or newer ('apt-get install coreutils'); basenc encodes the JWT"
	realms_make_files
	cp "$REALMS_DIR/client-ca.crt" "$ES_HOME/config/certs/"
	cp "$REALMS_DIR/jwks.json" "$ES_HOME/config/"
	printf '# Made by scripts/es.sh (ES_REALMS=1): role -> DNs of the PKI realm'"'"'s users.\n%s:\n  - "%s"\n' \
		"$REALMS_ROLE" "$REALMS_MAPPED_DN" >"$ES_HOME/config/role_mapping.yml"
	local password
	password="$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20)"
	as_es_user env ES_JAVA_HOME="$JAVA_DIR" "$ES_HOME/bin/elasticsearch-users" userdel "$REALMS_JWT_PRINCIPAL" >/dev/null 2>&1 || true
	as_es_user env ES_JAVA_HOME="$JAVA_DIR" "$ES_HOME/bin/elasticsearch-users" useradd "$REALMS_JWT_PRINCIPAL" \
		-p "$password" -r "$REALMS_ROLE" >/dev/null ||
		die "bin/elasticsearch-users useradd $REALMS_JWT_PRINCIPAL failed" "check that user '$ES_RUN_USER' can write $ES_HOME/config"
	[[ "$(id -u)" == 0 ]] && chown -R "$ES_RUN_USER:" "$ES_HOME/config"
	return 0
}

# realms_env: the realm lines of the env file.
realms_env() {
	local d="$REALMS_DIR"
	cat <<EOF
ES_REALMS=1
ES_PKI_CLIENT_CA=$d/client-ca.crt
ES_PKI_CERT=$d/pki-mapped.crt
ES_PKI_KEY=$d/pki-mapped.key
ES_PKI_UNMAPPED_CERT=$d/pki-unmapped.crt
ES_PKI_UNMAPPED_KEY=$d/pki-unmapped.key
ES_PKI_NOCN_CERT=$d/pki-nocn.crt
ES_PKI_NOCN_KEY=$d/pki-nocn.key
ES_JWT_PRINCIPAL=$REALMS_JWT_PRINCIPAL
ES_JWT=$(realms_jwt)
EOF
}
