import { getConfig, operatorOf } from '@/lib/config';
import { longDate, POLICY_EFFECTIVE, type Policy } from '@/lib/site/legal';

/** The head of a legal page: when its text took effect, and who operates the service (lib/config.ts OPERATOR_*). */
export function PolicyMeta({ policy }: { policy: Policy }) {
  const operator = operatorOf(getConfig());
  const effective = POLICY_EFFECTIVE[policy];
  return (
    <dl className="facts policy-meta" data-testid="policy-meta">
      <dt>Effective</dt>
      <dd>
        <time dateTime={effective}>{longDate(effective)}</time>
      </dd>
      <dt>Operated by</dt>
      <dd className={operator.nameSet ? undefined : 'muted'}>{operator.name}</dd>
      <dt>Address</dt>
      <dd className={operator.addressSet ? undefined : 'muted'}>{operator.address}</dd>
    </dl>
  );
}
