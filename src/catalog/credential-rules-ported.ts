/**
 * Fixed-prefix token formats ported from gitleaks' default rule set (config/gitleaks.toml, gitleaks v8, commit
 * 009e025ad4106ab333aa0b9dc4f2a884390d134c; MIT License, Copyright (c) 2019 Zachary Rice,
 * https://github.com/gitleaks/gitleaks). Only rules whose shape alone decides are taken: those keyed on a vendor
 * word near an assignment (`cloudflare… = …`) are covered by our generic assignment rule, and path-based ones do
 * not apply to tool metadata. secretlint's recommended preset (MIT, azu) was compared too; every format it covers
 * is here or in credential-rules.ts.
 *
 * Changes from gitleaks, all toward failing closed: no leading `\b` and no trailing delimiter group (a token glued
 * to a word is still a token, issue 11); `(?i)` bodies are written as explicit classes (JS has no inline flags);
 * entropy floors and allowlists are dropped, except that a short prefix glued to a preceding letter, digit or `_`
 * needs a random-looking body (`glued`), which keeps `mexico-…` from reading as an Infracost key.
 *
 * Issue 11 red team (F7): formats gitleaks added since (cmd/generate/config/rules/*.go at the same repository:
 * Atlassian, Sourcegraph, xAI, Groq, LangSmith, Cast AI, Chief Tools, SettleMint, Intra42, Typeform, New Relic) are
 * written here from their documented shapes, with bodies widened toward failing closed (xAI and Groq bodies of any
 * length from 40 up); Docker Hub access tokens (`dckr_pat_`) and Mapbox secret tokens (`sk.eyJ…`), which gitleaks
 * lacks or keys on a vendor word, are our own.
 *
 * Linear time: every pattern starts with a literal prefix and has one body run, or is fixed-length, or pins its
 * start with a look-behind (credential-rules.ts, module header).
 */
export interface PortedRule {
  readonly kind: string;
  readonly re: RegExp;
  /** At least one of these occurs in any match (gitleaks' `keywords`): a cheap substring test skips the regex. */
  readonly keywords: readonly string[];
  /** Length of the literal prefix, when a glued match must have a random-looking rest. */
  readonly glued?: number;
}

const A = 'A-Za-z0-9';

export const PORTED_RULES: readonly PortedRule[] = [
  { kind: '1password-service-account-token', keywords: ['ops_eyJ'], re: /ops_eyJ[A-Za-z0-9+/]{250,}={0,3}/g },
  { kind: '1password-secret-key', keywords: ['A3-'], re: /A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}/g },
  { kind: 'adobe-client-secret', keywords: ['p8e-'], re: new RegExp(`p8e-[${A}]{32}`, 'g'), glued: 4 },
  { kind: 'age-secret-key', keywords: ['AGE-SECRET-KEY-1'], re: /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/g },
  { kind: 'alibaba-access-key-id', keywords: ['LTAI'], re: new RegExp(`LTAI[${A}]{20}`, 'g'), glued: 4 },
  { kind: 'artifactory-api-key', keywords: ['AKCp'], re: new RegExp(`AKCp[${A}]{69}`, 'g') },
  { kind: 'clojars-api-token', keywords: ['CLOJARS_'], re: new RegExp(`CLOJARS_[${A}]{60}`, 'g') },
  { kind: 'cloudflare-origin-ca-key', keywords: ['v1.0-'], re: /v1\.0-[a-f0-9]{24}-[a-f0-9]{146}/g },
  { kind: 'databricks-api-token', keywords: ['dapi'], re: /dapi[a-f0-9]{32}(?:-\d)?/g, glued: 4 },
  { kind: 'doppler-api-token', keywords: ['dp.pt.'], re: new RegExp(`dp\\.pt\\.[${A}]{43}`, 'g') },
  { kind: 'duffel-api-token', keywords: ['duffel_'], re: new RegExp(`duffel_(?:test|live)_[${A}_=-]{43}`, 'g') },
  { kind: 'dynatrace-api-token', keywords: ['dt0c01.'], re: new RegExp(`dt0c01\\.[${A}]{24}\\.[${A}]{64}`, 'g') },
  { kind: 'easypost-api-token', keywords: ['EZAK', 'EZTK'], re: new RegExp(`EZ[AT]K[${A}]{54}`, 'g') },
  { kind: 'facebook-page-access-token', keywords: ['EAAM', 'EAAC'], re: new RegExp(`EAA[MC][${A}]{100,}`, 'g') },
  { kind: 'flutterwave-secret-key', keywords: ['FLWSECK_TEST-'], re: /FLWSECK_TEST-[a-hA-H0-9]{12,32}(?:-X)?/g },
  { kind: 'flyio-access-token', keywords: ['fo1_', 'fm1a_', 'fm1r_', 'fm2_'], re: /(?:fo1_[\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})/g },
  { kind: 'frameio-api-token', keywords: ['fio-u-'], re: new RegExp(`fio-u-[${A}_=-]{64}`, 'g') },
  { kind: 'gitlab-runner-registration-token', keywords: ['GR1348941'], re: /GR1348941[\w-]{20}/g },
  { kind: 'gitlab-session-cookie', keywords: ['_gitlab_session='], re: /_gitlab_session=[0-9a-z]{32}/g },
  { kind: 'grafana-api-key', keywords: ['eyJrIjoi'], re: new RegExp(`eyJrIjoi[${A}]{70,400}={0,3}`, 'g') },
  { kind: 'grafana-cloud-api-token', keywords: ['glc_'], re: /glc_[A-Za-z0-9+/]{32,400}={0,3}/g },
  { kind: 'grafana-service-account-token', keywords: ['glsa_'], re: new RegExp(`glsa_[${A}]{32}_[A-Fa-f0-9]{8}`, 'g') },
  { kind: 'harness-api-key', keywords: ['pat.', 'sat.'], re: new RegExp(`(?:pat|sat)\\.[${A}_-]{22}\\.[${A}]{24}\\.[${A}]{20}`, 'g') },
  { kind: 'hashicorp-tf-api-token', keywords: ['.atlasv1.'], re: new RegExp(`[${A}]{14}\\.atlasv1\\.[${A}_=-]{60,70}`, 'g') },
  { kind: 'heroku-api-key', keywords: ['HRKU-AA'], re: new RegExp(`HRKU-AA[${A}_-]{58}`, 'g') },
  { kind: 'huggingface-org-token', keywords: ['api_org_'], re: /api_org_[A-Za-z]{34}/g },
  { kind: 'infracost-api-token', keywords: ['ico-'], re: new RegExp(`ico-[${A}]{32}`, 'g'), glued: 4 },
  { kind: 'linear-api-key', keywords: ['lin_api_'], re: new RegExp(`lin_api_[${A}]{40}`, 'g') },
  { kind: 'maxmind-license-key', keywords: ['_mmk'], re: new RegExp(`[${A}]{6}_[${A}]{29}_mmk`, 'g') },
  { kind: 'microsoft-teams-webhook', keywords: ['webhook.office.com'], re: /webhook\.office\.com\/webhookb2\/[A-Za-z0-9@/-]{60,}/g },
  { kind: 'notion-api-token', keywords: ['ntn_'], re: new RegExp(`ntn_[0-9]{11}[${A}]{35}`, 'g') },
  { kind: 'octopus-deploy-api-key', keywords: ['API-'], re: /\bAPI-[A-Z0-9]{26}\b/g },
  { kind: 'openshift-user-token', keywords: ['sha256~'], re: /sha256~[\w-]{43}/g },
  { kind: 'perplexity-api-key', keywords: ['pplx-'], re: new RegExp(`pplx-[${A}]{48}`, 'g') },
  { kind: 'planetscale-token', keywords: ['pscale_'], re: /pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}/g },
  { kind: 'postman-api-token', keywords: ['PMAK-'], re: /PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}/g },
  { kind: 'prefect-api-token', keywords: ['pnu_'], re: new RegExp(`pnu_[${A}]{36}`, 'g'), glued: 4 },
  { kind: 'pulumi-api-token', keywords: ['pul-'], re: /pul-[a-f0-9]{40}/g, glued: 4 },
  { kind: 'readme-api-token', keywords: ['rdme_'], re: /rdme_[a-z0-9]{70}/g },
  { kind: 'rubygems-api-token', keywords: ['rubygems_'], re: /rubygems_[a-f0-9]{48}/g },
  { kind: 'scalingo-api-token', keywords: ['tk-us-'], re: /tk-us-[\w-]{48}/g },
  { kind: 'sendinblue-api-token', keywords: ['xkeysib-'], re: new RegExp(`xkeysib-[a-f0-9]{64}-[${A}]{16}`, 'g') },
  { kind: 'sentry-token', keywords: ['sntryu_', 'sntrys_'], re: /(?:sntryu_[a-f0-9]{64}|sntrys_eyJpYXQiO[A-Za-z0-9+/]{10,}={0,2}_[A-Za-z0-9+/]{43})/g },
  { kind: 'shippo-api-token', keywords: ['shippo_'], re: /shippo_(?:live|test)_[a-fA-F0-9]{40}/g },
  { kind: 'shopify-token', keywords: ['shpat_', 'shpca_', 'shppa_', 'shpss_'], re: /shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}/g },
  { kind: 'square-token', keywords: ['EAAA', 'sq0atp-', 'sq0csp-'], re: /(?:EAAA|sq0atp-|sq0csp-)[\w-]{22,60}/g, glued: 4 },
  // Telegram bot tokens have no prefix: `<bot id>:AA<33>`; the look-behind pins the start to the id's first digit.
  { kind: 'telegram-bot-token', keywords: [':AA'], re: /(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}/g },
  { kind: 'vault-token', keywords: ['hvs.', 'hvb.'], re: /hv[sb]\.[\w-]{90,300}/g },
  // Issue 11 red team (see the header).
  { kind: 'atlassian-api-token', keywords: ['ATATT3'], re: /ATATT3[A-Za-z0-9_=-]{186}/g },
  { kind: 'sourcegraph-access-token', keywords: ['sgp_'], re: /sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}/g, glued: 4 },
  { kind: 'xai-api-key', keywords: ['xai-'], re: new RegExp(`xai-[${A}]{40,}`, 'g'), glued: 4 },
  { kind: 'groq-api-key', keywords: ['gsk_'], re: new RegExp(`gsk_[${A}]{40,}`, 'g'), glued: 4 },
  { kind: 'langsmith-api-key', keywords: ['lsv2_'], re: new RegExp(`lsv2_(?:pt|sk)_[${A}]{32}_[${A}]{10}`, 'g') },
  { kind: 'castai-api-key', keywords: ['castai_v1_'], re: new RegExp(`castai_v1_[${A}]{64}_[${A}]{8}`, 'g') },
  { kind: 'chieftools-token', keywords: ['ctp_', 'cto_', 'ctr_'], re: new RegExp(`ct[por]_[${A}]{30,248}`, 'g'), glued: 4 },
  { kind: 'settlemint-token', keywords: ['sm_aat_', 'sm_pat_', 'sm_sat_'], re: new RegExp(`sm_[aps]at_[${A}]{16}`, 'g'), glued: 7 },
  { kind: 'intra42-client-secret', keywords: ['s-s4t2'], re: /s-s4t2(?:ud|af)-[a-f0-9]{64}/g },
  { kind: 'typeform-api-token', keywords: ['tfp_'], re: new RegExp(`tfp_[${A}_.=-]{59}`, 'g'), glued: 4 },
  { kind: 'new-relic-key', keywords: ['NRAK-', 'NRII-', 'NRJS-'], re: /(?:NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9-]{32}|NRJS-[a-f0-9]{19})/g },
  { kind: 'docker-access-token', keywords: ['dckr_pat_', 'dckr_oat_'], re: /dckr_[po]at_[A-Za-z0-9_-]{20,}/g },
  { kind: 'mapbox-secret-token', keywords: ['sk.eyJ'], re: /sk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}/g },
];
