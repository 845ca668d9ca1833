import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ErrorScreen } from './ErrorScreen';

interface State {
  hasError: boolean;
}

/** Around the routes: a render error shows the error screen instead of a blank page. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  state: State = { hasError: false };

  static getDerivedStateFromError(): State {
    return { hasError: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('Unexpected application error:', error, info.componentStack);
  }

  render(): ReactNode {
    return this.state.hasError ? <ErrorScreen /> : this.props.children;
  }
}
