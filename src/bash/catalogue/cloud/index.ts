import type { CatalogueEntry } from '../entry.js';
import { type About, handWritten } from '../hand-written.js';
import { CLOUD } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  gh: [
    'the GitHub CLI',
    {
      notReadOnly: ['gh pr list', 'gh pr view 123 --json title,state'],
      destructive: [
        'gh pr merge 12',
        'gh api repos/org/repo/labels -f name=triage',
        'gh pr merge 42 --squash --delete-branch',
      ],
    },
  ],
  kubectl: [
    'the Kubernetes CLI',
    {
      notReadOnly: ['kubectl get pods', 'oc get pods', 'kubectl get pods -A'],
      destructive: [
        'kubectl delete pod x',
        'oc delete pod x',
        'kubectl delete namespace staging',
        'kubectl apply -f k8s/',
      ],
    },
  ],
  helm: [
    'the Kubernetes package manager',
    { notReadOnly: ['helm list'], destructive: ['helm uninstall app'] },
  ],
  aws: [
    'the AWS CLI',
    {
      notReadOnly: ['aws s3 ls', 'gcloud config list', 'az account show'],
      destructive: [
        'aws s3 rm s3://b/k',
        'gcloud compute instances delete vm',
        'az group delete -n rg',
        'aws s3 sync ./site s3://my-bucket --delete',
      ],
    },
  ],
  gsutil: [
    'the Google Cloud Storage CLI',
    { notReadOnly: ['gsutil ls gs://b'], destructive: ['gsutil rm gs://b/k'] },
  ],
  docker: [
    'the Docker container CLI',
    {
      readOnly: ['docker --version'],
      notReadOnly: ['docker ps', 'podman ps', 'docker images', 'docker logs web'],
      destructive: ['docker rm -f web', 'docker run --rm alpine', 'podman rm web'],
    },
  ],
  terraform: [
    'infrastructure as code: plan and apply run providers',
    {
      destructive: [
        'terraform plan',
        'terraform apply',
        'tofu plan',
        'tofu destroy',
        'terraform apply -auto-approve',
        'terraform fmt -recursive',
      ],
    },
  ],
};

/**
 * Database clients: whatever they run (a -c/-e statement, a script, what is typed or piped in)
 * is the database's language, which the classifier does not read, so every use runs code the
 * line does not show.
 */
const DATABASES: CatalogueEntry = {
  name: 'psql',
  aliases: ['mysql', 'mariadb', 'sqlite3', 'mongo', 'mongosh', 'redis-cli', 'cqlsh'],
  summary: 'database clients (PostgreSQL, MySQL, SQLite, MongoDB, Redis, Cassandra)',
  shape: { kind: 'program', runs: 'runs database commands the classifier cannot see into', asks: [] },
  unknownOptions: 'fail',
  examples: {
    destructive: [
      'psql -c "drop table t"',
      'mysql -e "drop table t"',
      'mariadb -e "drop table t"',
      'sqlite3 app.db "delete from t"',
      'mongo',
      'mongosh',
      'redis-cli flushall',
      'cqlsh',
      "sqlite3 :memory: '.shell rm -f db.lock'",
      'redis-cli FLUSHDB',
    ],
  },
};

export const CLOUD_ENTRIES = [
  ...handWritten(
    CLOUD,
    'cloud, container and database clients: read-only subcommands (get, list, describe, ...), the rest change remote state',
    ABOUT,
  ),
  DATABASES,
];
