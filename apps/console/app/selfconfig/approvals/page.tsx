import type { Metadata } from 'next';
import { ApprovalInbox } from '../../../components/selfconfig/ApprovalInbox';

export const metadata: Metadata = { title: 'SelfConfig approvals' };

export default function SelfConfigApprovalsPage() {
  return <ApprovalInbox />;
}
