export const Title = () => <h1 className="title>Hi</h1>;
