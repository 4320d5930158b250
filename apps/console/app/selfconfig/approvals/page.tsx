import type { Metadata } from 'next';
import { FirstRequests } from '../../../components/layout/FirstRequests';
import { ApprovalInbox } from '../../../components/selfconfig/ApprovalInbox';

export const metadata: Metadata = { title: 'SelfConfig approvals' };

export default function SelfConfigApprovalsPage() {
  return (
    <>
      <FirstRequests page="selfconfigApprovals" />
      <ApprovalInbox />
    </>
  );
}
