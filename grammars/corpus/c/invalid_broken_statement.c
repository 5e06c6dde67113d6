int sum(int a, int b)
{
    int c = a + ;
    return c b;
}
